package lineindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"testing"

	"go.uber.org/zap"
)

// rawSpan is a span as encode writes it: the gap from the end of the line
// before (its newline excluded) and the length, as uvarints, so that a test
// can write what encode never does (a wrapped varint: a negative step or
// length).
type rawSpan struct{ gap, n uint64 }

// withSpans is the persisted index data with its lines replaced by spans
// and its checksum made right again: what someone who can write the cache
// directory can plant.
func withSpans(t testing.TB, data []byte, spans []rawSpan) []byte {
	t.Helper()
	body := data[:len(data)-4]
	r := FactReader{B: body[len(persistMagic):]}
	r.Uvarint()
	r.Bytes()
	r.Bytes()
	r.Uvarint()
	r.Uvarint()
	r.Varint()
	r.Varint()
	r.Uvarint()
	r.Uint32()
	head := body[:len(body)-len(r.B)]
	n := r.Uvarint()
	for range n {
		r.Uvarint()
		r.Uvarint()
	}
	if r.Bad {
		t.Fatal("not an index")
	}
	facts := r.B
	b := append([]byte(nil), head...)
	b = binary.AppendUvarint(b, uint64(len(spans)))
	for _, sp := range spans {
		b = binary.AppendUvarint(b, sp.gap)
		b = binary.AppendUvarint(b, sp.n)
	}
	b = append(b, facts...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// neg is -n as a wrapped uvarint.
func neg(n uint64) uint64 { return -n }

// spansOf is how encode writes lines.
func spansOf(lines []Span) []rawSpan {
	var out []rawSpan
	end := int64(0)
	for _, sp := range lines {
		out = append(out, rawSpan{uint64(sp.Off - end), uint64(sp.N)})
		end = sp.Off + sp.N
	}
	return out
}

// TestPlantedIndex: a persisted index whose checksum is right but whose
// lines are not the file's (the attack's wrapped varints: spans stepping
// back to serve the first line again and again, a negative length that
// made every page read panic) is refused when loaded: what is served is
// what a scan gives, and the planted file is gone (the next start loads
// the index that scan saved).
func TestPlantedIndex(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(good []rawSpan) []rawSpan
	}{
		{"spans step back to the first line", func(good []rawSpan) []rawSpan {
			out := []rawSpan{good[0]}
			for range len(good) - 1 {
				// From the end of line 0 back to its start.
				out = append(out, rawSpan{neg(good[0].n), good[0].n})
			}
			return out
		}},
		{"negative length", func(good []rawSpan) []rawSpan {
			out := slices.Clone(good)
			out[3].n = neg(5)
			return out
		}},
		{"negative length, then a step forward past it", func(good []rawSpan) []rawSpan {
			out := slices.Clone(good)
			out[3].gap += out[3].n + 10
			out[3].n = neg(10)
			return out
		}},
		{"two lines at one offset", func(good []rawSpan) []rawSpan {
			out := slices.Clone(good)
			out[2].gap = 0
			return out
		}},
		{"a line past the end", func(good []rawSpan) []rawSpan {
			out := slices.Clone(good)
			out[len(out)-1].gap += 1 << 20 // the file has some 10 KB
			return out
		}},
		{"a huge line", func(good []rawSpan) []rawSpan {
			out := slices.Clone(good)
			out[len(out)-1].n = 1 << 62
			return out
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newPersistEnv(t)
			e.read(e.cache("v1"))
			p := e.idxFile()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var good Index
			f, err := os.Open(e.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, _ := f.Stat()
			if _, err := decode(&good, data, e.path, "v1", f, fi); err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, string(withSpans(t, data, c.plant(spansOf(good.Lines())))))
			e.restart("v1", true)  // pages as a scan gives, no panic
			e.restart("v1", false) // and the planted index replaced
		})
	}
}

// TestReadPageBadIndex: an index with a span no scan makes (one that got
// past decoding, or a bug) fails its page read with ErrBadIndex, not a
// panic, and the Cache drops it: the next read scans the file again and
// serves the right page.
func TestReadPageBadIndex(t *testing.T) {
	e := newPersistEnv(t)
	c := e.cache("v1")
	f, err := os.Open(e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	var want []string
	if err := c.Read(ctx, e.path, f, func(x *factIndex) error { want = readLines(t, x, f); return nil }); err != nil {
		t.Fatal(err)
	}
	en := c.entry(e.path)
	bad := *en.idx
	bad.lines = slices.Clone(bad.lines)
	bad.lines[len(bad.lines)-2].N = -5 // the second page line, read desc
	en.idx = &bad
	err = c.Read(ctx, e.path, f, func(x *factIndex) error {
		return x.ReadPage(f, 0, 10, true, 0, func(int64, []byte) error { return nil })
	})
	if !errors.Is(err, ErrBadIndex) {
		t.Fatalf("page read through a bad index: %v, want ErrBadIndex", err)
	}
	// So is a span within the file that is not a whole line, read once the
	// index is rebuilt and spoilt again.
	if err := c.Read(ctx, e.path, f, func(*factIndex) error { return nil }); err != nil {
		t.Fatal(err)
	}
	bad = *en.idx
	bad.lines = slices.Clone(bad.lines)
	bad.lines[len(bad.lines)-2].N++
	en.idx = &bad
	err = c.Read(ctx, e.path, f, func(x *factIndex) error {
		return x.ReadPage(f, 0, 10, true, 0, func(int64, []byte) error { return nil })
	})
	if !errors.Is(err, ErrBadIndex) {
		t.Fatalf("page read of a span that is not a line: %v, want ErrBadIndex", err)
	}
	// A panic in the callback is one too.
	err = c.Read(ctx, e.path, f, func(x *factIndex) error {
		return x.ReadPage(f, 0, 10, true, 0, func(int64, []byte) error { panic("boom") })
	})
	if !errors.Is(err, ErrBadIndex) {
		t.Fatalf("page read that panicked: %v, want ErrBadIndex", err)
	}
	e.fullScans = 0
	var got []string
	if err := c.Read(ctx, e.path, f, func(x *factIndex) error { got = readLines(t, x, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || e.fullScans != 1 {
		t.Errorf("after a bad index: %d lines in %d full scans; want %d lines in 1", len(got), e.fullScans, len(want))
	}
}

// FuzzPersistedIndex: whatever lines a persisted index with right checksums
// holds, decoding it and reading pages through it never panics, and every
// line a page read passes on is a whole line of the file: decode refuses
// what is not a prefix's lines, and ReadPage what slips past it. The seeds
// hold the attack's shapes (spans stepping back, negative lengths).
func FuzzPersistedIndex(f *testing.F) {
	dir := f.TempDir()
	path := dir + "/s.jsonl"
	content := "{\"a\":1}\n\n# note\n{\"b\":22}\n{\"c\":333}\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		f.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		f.Fatal(err)
	}
	x, _, err := Refresh[testIndex](context.Background(), nil, file, fi, func(*testIndex, []byte) bool { return true }, zap.NewNop(), "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	tail, err := tailSum(file, fi.Size())
	if err != nil {
		f.Fatal(err)
	}
	good, err := encode(x.base(), nil, path, "v1", tail)
	if err != nil {
		f.Skip("no file identity here: indexes are not persisted")
	}
	// The seeds are the part after the header: the count, the spans, the
	// facts; the target puts back the header and the checksum.
	head := len(withSpans(f, good, nil)) - 4 - 2 // no spans: a count of 0 and empty facts
	seed := func(spans []rawSpan) []byte {
		b := withSpans(f, good, spans)
		return b[head : len(b)-4]
	}
	lines := spansOf(x.Lines())
	if !bytes.Equal(seed(lines), good[head:len(good)-4]) {
		f.Fatal("the seeds are not cut where the target joins them")
	}
	f.Add(seed(lines))
	f.Add(seed([]rawSpan{lines[0], {neg(lines[0].n), lines[0].n}, {neg(lines[0].n), lines[0].n}}))
	f.Add(seed([]rawSpan{lines[0], {lines[1].gap, neg(5)}}))
	f.Add(seed([]rawSpan{lines[0], {lines[1].gap + 20, neg(10)}, lines[2]}))
	f.Add(seed([]rawSpan{{0, 1 << 62}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, rest []byte) {
		b := append(append([]byte(nil), good[:head]...), rest...)
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
		var x Index
		if _, err := decode(&x, b, path, "v1", file, fi); err != nil {
			return
		}
		for _, desc := range []bool{false, true} {
			err := x.ReadPage(file, 0, len(x.Lines()), desc, 16, func(off int64, line []byte) error {
				if off < 0 || off+int64(len(line)) >= int64(len(content)) || (off > 0 && content[off-1] != '\n') ||
					content[off:off+int64(len(line))+1] != string(line)+"\n" {
					t.Fatalf("line %q at %d is not one of the file", line, off)
				}
				return nil
			})
			if err != nil && !errors.Is(err, ErrBadIndex) {
				t.Fatalf("page read: %v", err)
			}
		}
	})
}
