package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLine: no line makes ParseLine or ToMessage panic; isMessage and
// ToMessage agree (counting depends on it); a message always has an id and
// encodes as JSON.
func FuzzLine(f *testing.F) {
	for _, name := range []string{"exec.jsonl", "synthetic.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		if err != nil {
			return
		}
		m, ok := ToMessage(threadA, 7, l)
		if ok != isMessage(l) {
			t.Fatalf("ToMessage %v, isMessage %v", ok, isMessage(l))
		}
		if !ok {
			return
		}
		if m.ID == "" || m.Message.Content == nil {
			t.Fatalf("message without id or content: %+v", m)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("message does not encode: %v", err)
		}
		_ = prompt(l)
	})
}
