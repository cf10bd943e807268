package jsonl

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestBytes: Bytes reads a string where it stands, in a longer value too,
// as encoding/json decodes it (String the same), refuses any other value,
// and copies nothing of a string without escapes: its bytes are the line's.
func TestBytes(t *testing.T) {
	took := 0
	for _, s := range append(unquoteSeeds, `"`, "") {
		for _, v := range []string{`"` + s + `"`, `"` + s + `",1`, s, `null`, `7`} {
			b := []byte(v)
			var got []byte
			var str string
			e := Bytes(b, 0, &got)
			if se := String(b, 0, &str); se != e || str != string(got) {
				t.Fatalf("%q: String %d %q, Bytes %d %q", v, se, str, e, got)
			}
			if e < 0 {
				continue
			}
			took++
			var want string
			if err := json.Unmarshal(b[:e], &want); err != nil || want != string(got) {
				t.Fatalf("%q: Bytes %q, ends at %d; encoding/json %q, %v", v, got, e, want, err)
			}
			if bytes.IndexByte(b[:e], '\\') < 0 && len(got) > 0 && &got[0] != &b[1] {
				t.Fatalf("%q: Bytes copied a string without escapes", v)
			}
		}
	}
	if took < 20 {
		t.Fatalf("Bytes read only %d values", took)
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
