package rollout

import (
	"bytes"
	"cmp"
	"io"
)

// maxLine bounds one rollout line held in memory (lines with images or huge
// tool output run to megabytes); a longer one is skipped and counted.
const maxLine = 64 << 20

// chunkSize is how much is read from a rollout at a time.
const chunkSize = 256 << 10

// lineSplitter cuts a byte stream into newline-terminated lines, holding a
// partial last line until its newline arrives, and tracks file offsets so
// that a caller can index lines and resume where it stopped.
type lineSplitter struct {
	max      int64  // longest line kept; 0 means maxLine
	pos      int64  // offset just after the last complete line
	pending  []byte // the incomplete line after pos, unless overlong
	partial  int64  // length of the incomplete line, buffered or not
	overlong bool   // the incomplete line is too long and being skipped
	skipped  int    // overlong lines dropped so far
}

// feed splits the bytes that follow everything fed so far, calling fn with
// each complete line's offset and content (valid only during the call).
func (s *lineSplitter) feed(data []byte, fn func(off int64, line []byte)) {
	limit := cmp.Or(s.max, maxLine)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.take(data, limit)
			return
		}
		line, n := data[:i], int64(i) // no copy in the common case
		if s.partial == 0 {
			s.overlong = n > limit
		} else {
			s.take(data[:i], limit)
			line, n = s.pending, s.partial
		}
		if s.overlong {
			s.skipped++
		} else {
			fn(s.pos, line)
		}
		s.pos += n + 1
		s.pending, s.partial, s.overlong = s.pending[:0], 0, false
		data = data[i+1:]
	}
}

// take adds b to the incomplete line.
func (s *lineSplitter) take(b []byte, limit int64) {
	s.partial += int64(len(b))
	if s.overlong {
		return
	}
	if s.partial > limit {
		s.overlong, s.pending = true, nil
		return
	}
	s.pending = append(s.pending, b...)
}

// reset restarts splitting at offset pos, dropping any incomplete line.
func (s *lineSplitter) reset(pos int64) {
	*s = lineSplitter{max: s.max, pos: pos, skipped: s.skipped}
}

// readLines feeds r to s in chunks until EOF, reusing buf.
func readLines(r io.Reader, s *lineSplitter, buf []byte, fn func(off int64, line []byte)) error {
	for {
		n, err := r.Read(buf)
		s.feed(buf[:n], fn)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lastLineStart is the offset just after the last newline before size in
// r, or 0: where a reader that wants only new lines, but no torn one, starts.
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
