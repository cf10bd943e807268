package jsonl

import (
	"bytes"
	"testing"
)

// splitLine is one line as the splitter reports it.
type splitLine struct {
	off  int64
	text string
}

// splitAll is the reference: lines cut at every newline, those longer than
// max dropped and counted, and what follows the last newline left pending.
func splitAll(data []byte, max int64) (lines []splitLine, skipped int, pos int64) {
	for {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return lines, skipped, pos
		}
		if int64(i) > max {
			skipped++
		} else {
			lines = append(lines, splitLine{pos, string(data[pos : pos+int64(i)])})
		}
		pos += int64(i) + 1
	}
}

// FuzzLineSplitter: feeding the same bytes in any chunking gives the lines,
// offsets, skipped count and pending tail of a plain split.
func FuzzLineSplitter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), []byte{1, 2, 3}, uint8(2))
	f.Add([]byte("0123456789\nx\n"), []byte{4}, uint8(3))
	f.Add([]byte("\n\n\n"), []byte{}, uint8(0))
	f.Add([]byte(`{"type":"user","uuid":"u1"}`+"\n"+`{"type":"assistant","uuid":"a1"}`+"\n"+`{"type":"user"`), []byte{7, 100, 250, 3}, uint8(200))
	f.Fuzz(func(t *testing.T, data, cuts []byte, max uint8) {
		limit := int64(max) + 1
		want, skipped, end := splitAll(data, limit)
		s := Splitter{Max: limit}
		var got []splitLine
		fn := func(off int64, b []byte) { got = append(got, splitLine{off, string(b)}) }
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				if c := int(cuts[i%len(cuts)]); c == 0 {
					s.Feed(nil, fn) // an empty read
				} else {
					n = min(n, c)
				}
			}
			s.Feed(rest[:n], fn)
			rest = rest[n:]
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("line %d: got %d:%q, want %d:%q", i, got[i].off, got[i].text, want[i].off, want[i].text)
			}
		}
		tail := data[end:]
		if s.Pos != end || s.Partial != int64(len(tail)) || s.Skipped != skipped {
			t.Fatalf("pos %d, partial %d, skipped %d; want %d, %d, %d", s.Pos, s.Partial, s.Skipped, end, len(tail), skipped)
		}
		if int64(len(tail)) <= limit && !bytes.Equal(s.Pending, tail) {
			t.Fatalf("pending %q, want %q", s.Pending, tail)
		}
	})
}
