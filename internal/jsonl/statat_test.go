package jsonl

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestStatAt: StatAt says what os.Lstat says of a file, in the terms
// Current compares, and a missing file is fs.ErrNotExist.
func TestStatAt(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "a.jsonl")
	writeFile(t, p, "line\n")
	df, err := os.Open(d)
	if err != nil {
		t.Fatal(err)
	}
	defer df.Close()
	got, err := StatAt(df, "a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Lstat(p)
	if !sameFile(got, want) || got.Size() != want.Size() || !got.ModTime().Equal(want.ModTime()) || got.Name() != "a.jsonl" {
		t.Errorf("StatAt %v %d %v, Lstat %v %d %v", got.Name(), got.Size(), got.ModTime(), want.Name(), want.Size(), want.ModTime())
	}
	if _, err := StatAt(df, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A file replaced under the same name is another file.
	writeFile(t, p+".new", "line\n")
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	if again, _ := StatAt(df, "a.jsonl"); sameFile(again, got) {
		t.Error("a replaced file has the same identity")
	}
}
