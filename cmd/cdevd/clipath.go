package main

import (
	"os"
	"path/filepath"
	"slices"
)

// selfPath is cdevd's own path (tests replace it).
var selfPath = os.Executable

// addRepoCLIs appends to cdevd's PATH the node_modules/.bin of the
// repository cdevd was built in, when it runs from there (./bin/cdevd,
// where `make` builds it) and that folder exists: the pinned CLIs `make
// install` puts there are then found by every command, not only under
// make (`make serve` used to add it inside make alone, so `./bin/cdevd
// doctor` said "not found on PATH" of CLIs serve was using). It comes
// after what PATH holds, so a CLI of one's own (logged in) takes
// precedence. adapters() calls it: serve, doctor and the service resolve
// the CLIs alike. It returns the folder added, "" when none.
func addRepoCLIs() string {
	exe, err := selfPath()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	bin := filepath.Dir(exe)
	if filepath.Base(bin) != "bin" {
		return ""
	}
	dir := filepath.Join(filepath.Dir(bin), "node_modules", ".bin")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	path := os.Getenv("PATH")
	if slices.Contains(filepath.SplitList(path), dir) {
		return dir
	}
	if path != "" {
		path += string(os.PathListSeparator)
	}
	os.Setenv("PATH", path+dir) //nolint:errcheck // cannot fail for a valid name
	return dir
}
