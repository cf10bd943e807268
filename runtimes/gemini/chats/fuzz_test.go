package chats

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ParseLine is parseLine of a line that must be valid JSON, each Raw its
// own: what the fuzz target holds the replay to.
func ParseLine(b []byte) (Line, error) {
	if !json.Valid(bytes.TrimSpace(b)) {
		return Line{}, errors.New("chat line: not JSON")
	}
	l, err := parseLine(b)
	l.Record.Raw = bytes.Clone(l.Record.Raw)
	for i := range l.SetMsgs {
		l.SetMsgs[i].Raw = bytes.Clone(l.SetMsgs[i].Raw)
	}
	return l, err
}

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
		st := newRef()
		st.apply("f", 0, b)
		v := st.snapshot()
		for _, e := range v.msgs {
			raw, err := e.read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("record %s not where the replay has it: %v", e.id, err)
			}
			ToMessage("s", raw, v.called, "")
		}
		l, err := ParseLine(b)
		if err == nil && l.Kind == KindRecord && l.Record.ID == "" {
			t.Fatal("record without an id")
		}
		// A record of a $set list is exactly its element of the line.
		for _, r := range l.SetMsgs {
			var h struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(r.Raw, &h) != nil || h.ID != r.ID {
				t.Fatalf("set record %q is %q", r.ID, r.Raw)
			}
		}
	})
}
