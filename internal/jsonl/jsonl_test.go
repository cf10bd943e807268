package jsonl

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLineSplitter feeds lines of random lengths (some over the limit) in
// random chunks and checks every line and offset against a plain split.
func TestLineSplitter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		type line struct {
			off  int64
			text string
		}
		var data []byte
		var want []line
		skipped := 0
		for range rng.IntN(20) {
			text := strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(130))
			if len(text) > 100 {
				skipped++
			} else {
				want = append(want, line{int64(len(data)), text})
			}
			data = append(data, text+"\n"...)
		}
		end := int64(len(data))
		tail := strings.Repeat("z", rng.IntN(50))
		data = append(data, tail...)

		s := Splitter{Max: 100}
		var got []line
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(40))
			s.Feed(rest[:n], func(off int64, b []byte) { got = append(got, line{off, string(b)}) })
			rest = rest[n:]
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: %d lines, want %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d, line %d: got %d:%q, want %d:%q", round, i, got[i].off, got[i].text, want[i].off, want[i].text)
			}
		}
		if s.Pos != end || s.Partial != int64(len(tail)) || s.Skipped != skipped {
			t.Fatalf("round %d: pos %d, partial %d, skipped %d; want %d, %d, %d", round, s.Pos, s.Partial, s.Skipped, end, len(tail), skipped)
		}
		if len(tail) <= 100 && string(s.Pending) != tail {
			t.Fatalf("round %d: pending %q, want %q", round, s.Pending, tail)
		}
	}
}

func TestLastLineStart(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"", 0},
		{"abc", 0},
		{"a\n", 2},
		{"a\nbc", 2},
		{"a\nb\nc", 4},
		{strings.Repeat("x", 100<<10) + "\n" + strings.Repeat("y", 70<<10), 100<<10 + 1}, // found across reads
	} {
		got, err := lastLineStart(bytes.NewReader([]byte(c.in)), int64(len(c.in)))
		if err != nil || got != c.want {
			t.Errorf("lastLineStart(%.10q… %d bytes) = %d, %v; want %d", c.in, len(c.in), got, err, c.want)
		}
	}
}
