// Package jsonl reads JSON Lines files that another process appends to (the
// agent CLIs' transcripts): it splits them into lines, follows them, and
// reads their lines' members by a Schema (the store's index of such a file
// is runtimes/history/lineindex).
package jsonl

import (
	"bytes"
	"cmp"
	"io"
)

// MaxLine bounds one line held in memory (lines with images or huge tool
// output run to megabytes); a longer one is skipped and counted.
const MaxLine = 64 << 20

// ChunkSize is how much is read from a file at a time.
const ChunkSize = 256 << 10

// Splitter cuts a byte stream into newline-terminated lines, whatever the
// chunking of the reads: it holds a partial last line until its newline
// arrives, skips (and counts) one too long to hold, and tracks offsets, so
// that a caller can index lines and resume where it stopped.
type Splitter struct {
	Max      int64  // longest line kept; 0 means MaxLine
	Pos      int64  // offset just after the last complete line
	Pending  []byte // the incomplete line after Pos, unless overlong
	Partial  int64  // length of the incomplete line, buffered or not
	Skipped  int    // overlong lines dropped so far
	overlong bool   // the incomplete line is too long and being skipped
}

// Feed splits the bytes that follow everything fed so far, calling fn with
// each complete line's offset and content (valid only during the call).
func (s *Splitter) Feed(data []byte, fn func(off int64, line []byte)) {
	limit := cmp.Or(s.Max, MaxLine)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.take(data, limit)
			return
		}
		line, n := data[:i], int64(i) // no copy in the common case
		if s.Partial == 0 {
			s.overlong = n > limit
		} else {
			s.take(data[:i], limit)
			line, n = s.Pending, s.Partial
		}
		if s.overlong {
			s.Skipped++
		} else {
			fn(s.Pos, line)
		}
		s.Pos += n + 1
		s.Pending, s.Partial, s.overlong = s.Pending[:0], 0, false
		data = data[i+1:]
	}
}

// take adds b to the incomplete line.
func (s *Splitter) take(b []byte, limit int64) {
	s.Partial += int64(len(b))
	if s.overlong {
		return
	}
	if s.Partial > limit {
		s.overlong, s.Pending = true, nil
		return
	}
	s.Pending = append(s.Pending, b...)
}

// Reset restarts splitting at offset pos, dropping any incomplete line.
func (s *Splitter) Reset(pos int64) {
	*s = Splitter{Max: s.Max, Pos: pos, Skipped: s.Skipped}
}

// lastLineStart is the offset just after the last newline before size in
// r, or 0: where a reader that wants new lines only, but no torn one, starts.
func lastLineStart(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := r.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
