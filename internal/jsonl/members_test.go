package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// members is what Members reports, as "key=value" strings.
func members(line string) ([]string, bool) {
	var got []string
	ok := Members([]byte(line), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	return got, ok
}

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
		ok := Members(b, func(k, v []byte) { vals = append(vals, bytes.Clone(v)) })
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
