package chats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseLine: no line makes the parser, the replay or the conversion
// panic, and a record line always converts without failing.
func FuzzParseLine(f *testing.F) {
	for _, name := range []string{"session.jsonl", "reset.jsonl", "phantom.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"$set":{"messages":7}}`))
	f.Add([]byte(`{"id":"x","type":"user","content":"plain"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := newState()
		st.apply(b)
		v := st.snapshot(0)
		for _, e := range v.msgs {
			ToMessage("s", e.raw, v.called, "")
		}
		l, err := ParseLine(b)
		if err == nil && l.Kind == KindRecord && l.Record.ID == "" {
			t.Fatal("record without an id")
		}
	})
}
