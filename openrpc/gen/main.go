// Command gen writes cdevd's OpenRPC document; `go generate ./openrpc` runs it.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/cdevd/cdevd/openrpc"
)

func main() {
	out := flag.String("o", "openrpc.json", "file to write")
	flag.Parse()
	b, err := openrpc.Generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
