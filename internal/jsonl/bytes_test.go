package jsonl

import (
	"bytes"
	"testing"
)

// Bytes reads what String reads, refuses what it refuses, and copies
// nothing of a string without escapes: its bytes are the line's.
func TestBytesIsString(t *testing.T) {
	for _, s := range append(unquoteSeeds, `"`, "") {
		for _, v := range []string{`"` + s + `"`, `"` + s + `",1`, s, `null`, `7`} {
			b := []byte(v)
			var str string
			var got []byte
			se, be := String(b, 0, &str), Bytes(b, 0, &got)
			if se != be || (se > 0 && string(got) != str) {
				t.Fatalf("%q: Bytes %d %q, String %d %q", v, be, got, se, str)
			}
			if be > 0 && bytes.IndexByte(b[:be], '\\') < 0 && len(got) > 0 && &got[0] != &b[1] {
				t.Fatalf("%q: Bytes copied a string without escapes", v)
			}
		}
	}
}

// ReadShapedAt reads an object inside a line as ReadAt does, keeping what
// *dst held before (it does not zero it), its keys remembered in a Shape.
func TestReadShapedAt(t *testing.T) {
	type kept struct {
		a, b  string
		lines int
	}
	s := NewSchema(
		StringKey("a", func(k *kept) *string { return &k.a }),
		StringKey("b", func(k *kept) *string { return &k.b }),
	)
	var sh Shape
	k := kept{lines: 7}
	for _, line := range []string{`x{"a":"1","c":[1,{"b":2}],"b":"2"}`, `x{"a":"3","c":null,"b":"4"}`} {
		b := []byte(line)
		want := kept{lines: 7}
		if e := s.ReadAt(b, 1, &want); e != len(b) {
			t.Fatalf("ReadAt(%s) ended at %d", line, e)
		}
		if e := s.ReadShapedAt(&sh, b, 1, &k); e != len(b) || k != want {
			t.Fatalf("ReadShapedAt(%s) = %d, %+v; ReadAt %+v", line, e, k, want)
		}
	}
	if len(sh.at) == 0 {
		t.Fatal("the shape remembered no key")
	}
}
