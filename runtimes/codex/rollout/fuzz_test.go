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

// FuzzSplitter: however a stream is cut into writes, the splitter yields
// the same lines at the same offsets as one whole read.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(1))
	f.Add([]byte("0123456789\n01\n0123456789012\n"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		type got struct {
			off  int64
			line string
		}
		run := func(step int) ([]got, int) {
			s := lineSplitter{max: 8}
			var out []got
			for i := 0; i < len(data); i += step {
				s.feed(data[i:min(i+step, len(data))], func(off int64, l []byte) { out = append(out, got{off, string(l)}) })
			}
			return out, s.skipped
		}
		whole, skipped := run(max(len(data), 1))
		parts, skipped2 := run(int(cut%16) + 1)
		if len(whole) != len(parts) || skipped != skipped2 {
			t.Fatalf("whole %v (%d skipped), parts %v (%d skipped)", whole, skipped, parts, skipped2)
		}
		for i := range whole {
			if whole[i] != parts[i] || int64(len(whole[i].line)) > 8 || !bytes.HasPrefix(data[whole[i].off:], []byte(whole[i].line+"\n")) {
				t.Fatalf("line %d: whole %v, parts %v", i, whole[i], parts[i])
			}
		}
	})
}
