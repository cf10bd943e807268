// Package jsonltest holds a reader's jsonl.Schema to encoding/json, for the
// fuzz targets of the readers that declare schemas (each with its real
// schemas and types, not copies of them).
package jsonltest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// Checker is a Case of any type, for a list of a reader's schemas.
type Checker interface {
	Check(t testing.TB, b []byte) bool
	Took(t testing.TB, seeds [][]byte) int
}

// Case is one schema held to encoding/json decoding into its T.
type Case[T any] struct {
	Label  string
	Schema *jsonl.Schema[T]
}

// Check fails t unless c's schema, where it reads a valid JSON line b, reads
// what encoding/json decodes into a T; read with the keys' shape remembered
// (as a scan reads) it must read the same as afresh, and a line it refuses
// must leave its T zero. It reports whether the schema read b.
func (c Case[T]) Check(t testing.TB, b []byte) bool {
	t.Helper()
	var got, zero T
	ok := c.Schema.Read(b, &got)
	sh := new(jsonl.Shape)
	for range 2 {
		var shaped T
		if sok := c.Schema.ReadShaped(sh, b, &shaped); sok != ok || !reflect.DeepEqual(shaped, got) {
			t.Fatalf("%s: %s: read with its shape remembered %v %#v; afresh %v %#v", c.Label, b, sok, shaped, ok, got)
		}
	}
	if !ok {
		if !reflect.DeepEqual(got, zero) {
			t.Fatalf("%s: %s: refused, yet read %#v", c.Label, b, got)
		}
		return false
	}
	if !json.Valid(b) {
		return true // not compared: what a schema skips is not validated
	}
	var want T
	if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Logf("encoding/json: %v", err)
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("%s: %s:\nschema %s\njson   %s", c.Label, b, gj, wj)
	}
	return true
}

// Took is how many of seeds c reads, each checked: a test asserts it is
// enough, since a schema that read none of them would prove nothing.
func (c Case[T]) Took(t testing.TB, seeds [][]byte) int {
	t.Helper()
	n := 0
	for _, b := range seeds {
		if c.Check(t, b) {
			n++
		}
	}
	return n
}

// Lines is every line of the files the globs match, in order (a glob that
// matches none fails t): the seeds a reader's testdata gives its schemas.
func Lines(t testing.TB, globs ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, glob := range globs {
		files, err := filepath.Glob(glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("no seeds in %s: %v", glob, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, bytes.Split(b, []byte("\n"))...)
		}
	}
	return out
}
