// Command gen writes cdevd's OpenRPC document, its JSON Schema bundle and its
// method table into a directory; `go generate ./openrpc` runs it.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/cdevd/cdevd/openrpc"
)

func main() {
	dir := flag.String("d", ".", "directory to write the files in")
	flag.Parse()
	files, err := openrpc.GenerateFiles()
	if err != nil {
		log.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
