package proc

import (
	"os"
	"path/filepath"
	"strings"
)

// AbsolutePATH returns env (nil: the daemon's own environment) with only
// the absolute directories of its PATH. A CLI runs in the session's
// directory, a workspace cdevd does not control: a relative entry ("bin",
// ".", node_modules/.bin) or an empty one (the current directory) would
// find a program the repository ships before the real one, and the CLIs
// find their interpreter through PATH (#!/usr/bin/env node). A PATH left
// with no directory is removed rather than left empty, which execvp also
// takes for the current directory; without one, it searches its default.
func AbsolutePATH(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		dirs, ok := strings.CutPrefix(kv, "PATH=")
		if !ok {
			out = append(out, kv)
			continue
		}
		if kept, _ := AbsoluteDirs(dirs); len(kept) > 0 {
			out = append(out, "PATH="+strings.Join(kept, string(filepath.ListSeparator)))
		}
	}
	return out
}

// AbsoluteDirs splits a PATH value into its absolute directories, in
// order, and the entries dropped (relative or empty).
func AbsoluteDirs(list string) (kept, dropped []string) {
	for _, dir := range filepath.SplitList(list) {
		if filepath.IsAbs(dir) {
			kept = append(kept, dir)
		} else {
			dropped = append(dropped, dir)
		}
	}
	return kept, dropped
}

// relativePath says whether path names a file relative to the working
// directory (bin/claude), rather than a command looked up on PATH (claude)
// or an absolute path.
func relativePath(path string) bool {
	return strings.ContainsRune(path, filepath.Separator) && !filepath.IsAbs(path)
}
