package jsonl

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDirGen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("directories are watched on Linux only")
	}
	d := t.TempDir()
	p := filepath.Join(d, "a.jsonl")
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gen := func() uint64 {
		t.Helper()
		g, ok := DirGen(d)
		if !ok {
			t.Fatal("directory not watched")
		}
		return g
	}
	g := gen()
	if g2 := gen(); g2 != g {
		t.Fatalf("unchanged directory: generation %d then %d", g, g2)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A write alone, its file still open: the next call sees it.
	if _, err := f.WriteString("{}\n"); err != nil {
		t.Fatal(err)
	}
	if g2 := gen(); g2 == g {
		t.Fatal("a write to a file of the directory did not move its generation")
	}
	if _, ok := DirGen(filepath.Join(d, "missing")); ok {
		t.Error("a missing directory is watched")
	}
	if _, ok := DirGen(p); ok {
		t.Error("a file is watched as a directory")
	}
}
