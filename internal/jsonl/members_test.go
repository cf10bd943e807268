package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/claudegen"
)

// walkLine walks the object that is the whole of line (but for spaces),
// calling fn with each member's key (as written) and value (as written).
func walkLine(line []byte, fn func(key, val []byte)) bool {
	return Whole(line, walk(line, skipSpace(line, 0), nil, anyKey, func(key []byte, _, at int) int {
		e := ValueEnd(line, at)
		if e >= 0 {
			fn(key, line[at:e])
		}
		return e
	}))
}

// members is what walkLine reports, as "key=value" strings.
func members(line string) ([]string, bool) {
	var got []string
	ok := walkLine([]byte(line), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	return got, ok
}

// TestMembers: the walk of an object's members takes each member as
// written, and refuses what is not an object of that shape.
func TestMembers(t *testing.T) {
	for _, c := range []struct {
		line string
		want string // fmt of the members, or "" when not ok
	}{
		{`{}`, `[]`},
		{` {"a":1, "b" : "x" ,"c":null}`, `[a=1 b="x" c=null]`},
		{`{"a":{"b":[1,{"c":"]}"}]},"d":true}`, `[a={"b":[1,{"c":"]}"}]} d=true]`},
		{`{"a":"q\"}","b":"\\","c":"\\\"{"}`, `[a="q\"}" b="\\" c="\\\"{"]`},
		{`{"k\"ey":[]}`, `[k\"ey=[]]`},
		{`{"a":1`, ``},
		{`{"a":"x}`, ``},
		{`{"a":{"b":1}`, ``},
		{`{"a":}`, ``},
		{`{"a" 1}`, ``},
		{`{"a":1}}`, ``},
		{`{a:1}`, ``},
		{`[]`, ``},
		{``, ``},
	} {
		got, ok := members(c.line)
		s := fmt.Sprint(got)
		if !ok {
			s = ""
		}
		if s != c.want {
			t.Errorf("%s: %q (ok %v), want %q", c.line, s, ok, c.want)
		}
	}
}

// FuzzMembers: every valid JSON object is walked whole, into the members
// encoding/json sees, each value valid JSON itself.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":{"b":[1,"]"]},"c":"\\\""}`, `{"x":1e5,"y":[true,null]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var vals []json.RawMessage
		ok := walkLine(b, func(k, v []byte) { vals = append(vals, bytes.Clone(v)) })
		if !json.Valid(b) || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			return
		}
		if !ok {
			t.Fatalf("valid object refused: %q", b)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token() // {
		i := 0
		for ; dec.More(); i++ {
			dec.Token() // the key
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil || i >= len(vals) || !bytes.Equal(v, vals[i]) {
				t.Fatalf("member %d: decoder %q, %v; Members %q", i, v, err, vals)
			}
		}
		if i != len(vals) {
			t.Fatalf("decoder: %d members; Members %q", i, vals)
		}
	})
}

// benchLines are about 4 MB of generated transcript lines (one message and
// one other line at a time), their pads written by pad.
func benchLines(pad string) ([][]byte, int64) {
	g := claudegen.New("00000000-0000-4000-8000-000000000001", "/home/user/project")
	g.Pad = pad
	var lines [][]byte
	var n int64
	for n < 4<<20 {
		for _, l := range []string{g.Message(), g.Noise()} {
			lines = append(lines, []byte(l))
			n += int64(len(l)) + 1
		}
	}
	return lines, n
}

// BenchmarkMembers walks the top-level members of transcript lines: the
// bulk of the CPU of a first index build. "escaped" has the escapes of real
// tool output (newlines, quotes) in its long strings.
func BenchmarkMembers(b *testing.B) {
	for _, c := range []struct{ name, pad string }{
		{"plain", claudegen.LoremPad},
		{"escaped", strings.Repeat(` lorem\n\t\"ipsum\" \\ dolor`, 40)},
	} {
		b.Run(c.name, func(b *testing.B) {
			lines, n := benchLines(c.pad)
			b.SetBytes(n)
			for b.Loop() {
				for _, l := range lines {
					if !walkLine(l, func(k, v []byte) {}) {
						b.Fatalf("refused: %s", l)
					}
				}
			}
		})
	}
}

// object is walk of the object at b[i], its keys given as written.
func object(b []byte, i int, fn func(key []byte, at int) int) int {
	return walk(b, i, nil, anyKey, func(key []byte, _, at int) int { return fn(key, at) })
}

// TestObject: a value read where it is, by a nested walk, says what a walk
// says of it measured first; a walk returns where the object ends inside a
// longer slice, and -1 once its reader stops it.
func TestObject(t *testing.T) {
	line := []byte(`{"a":{"b":"}{","c":[1,{"d":"]"}]},"e":"x"} tail`)
	var got []string
	end := object(line, 0, func(k []byte, at int) int {
		if string(k) != "a" {
			return ValueEnd(line, at)
		}
		return object(line, at, func(k []byte, at int) int {
			e := ValueEnd(line, at)
			got = append(got, string(k)+"="+string(line[at:e]))
			return e
		})
	})
	if want := `{"a":{"b":"}{","c":[1,{"d":"]"}]},"e":"x"}`; end != len(want) {
		t.Fatalf("the walk ends at %d, want %d", end, len(want))
	}
	want, ok := members(`{"b":"}{","c":[1,{"d":"]"}]}`)
	if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read in place %v, measured first %v", got, want)
	}
	calls := 0
	if e := object(line, 0, func([]byte, int) int { calls++; return -1 }); e != -1 || calls != 1 {
		t.Errorf("a stopped walk: end %d after %d calls, want -1 after 1", e, calls)
	}
	if e := object([]byte(`{"a":1,}`), 0, func(_ []byte, at int) int { return at + 1 }); e != -1 {
		t.Errorf("trailing comma: end %d", e)
	}
}

// anyKey gives every key the id 0.
func anyKey([]byte) int { return 0 }
