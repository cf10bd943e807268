package transcript

import (
	"context"
	"io"
	"os"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// span locates one message line in a transcript (without its newline).
type span struct {
	off int64
	n   int64
}

// index is what one scan of a transcript learned: where its message lines
// are and what List reports. It covers the file up to split.Pos, the end of
// its last complete line, as of the file version fi.
type index struct {
	fi    os.FileInfo
	split jsonl.Splitter
	lines []span

	customTitle, aiTitle, summary, prompt, branch string
}

// add takes one line into the index.
func (x *index) add(off int64, b []byte) {
	l, err := ParseLine(b)
	if err != nil {
		return // a torn or foreign line: not a message
	}
	if isMessage(l) {
		x.lines = append(x.lines, span{off, int64(len(b))})
	}
	if l.GitBranch != "" {
		x.branch = l.GitBranch
	}
	// The latest title of each kind wins: they are re-appended when renamed.
	switch l.Type {
	case "custom-title":
		x.customTitle = l.CustomTitle
	case "ai-title":
		x.aiTitle = l.AITitle
	case "summary":
		x.summary = l.Summary
	}
	if x.prompt == "" {
		x.prompt = prompt(l)
	}
}

// title is the session's summary: a title the user or the CLI gave it, else
// the first prompt, cut to about 100 characters.
func (x *index) title() string {
	for _, t := range []string{x.customTitle, x.aiTitle, x.summary, x.prompt} {
		if t != "" {
			return shorten(t, 100)
		}
	}
	return ""
}

// shorten cuts s to at most n runes on one line, marking a cut with '…'.
func shorten(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' || c == '\t' {
			r[i] = ' '
		}
	}
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// entry is the cached index of one transcript path.
type entry struct {
	mu  sync.Mutex
	idx *index // nil until first scanned
}

// upToDate reports whether idx still describes the file version fi.
func (x *index) upToDate(fi os.FileInfo) bool {
	return x != nil && os.SameFile(x.fi, fi) && x.fi.Size() == fi.Size() && x.fi.ModTime().Equal(fi.ModTime())
}

// refresh brings e's index up to date with f, whose current version is fi:
// nothing when unchanged; only the appended bytes when the same file grew;
// a full scan when it is new, shrank, was replaced or rewritten. The caller
// holds e.mu.
func (s *Store) refresh(ctx context.Context, e *entry, f *os.File, fi os.FileInfo) error {
	old := e.idx
	if old.upToDate(fi) {
		return nil
	}
	var x index
	if old != nil && os.SameFile(old.fi, fi) && fi.Size() > old.fi.Size() && appendedTo(f, old.split.Pos) {
		// Extend a copy, so that old stays intact if ctx ends the scan. Appending
		// to lines cannot change old's view of them; pending is rewritten in
		// place, so it is copied.
		x = *old
		x.split.Pending = append([]byte(nil), old.split.Pending...)
	} else {
		s.fullScans.Add(1)
	}
	x.fi = fi
	from := x.split.Pos + x.split.Partial
	r := io.NewSectionReader(f, from, fi.Size()-from)
	// Sized to the work when small (the common case: a few appended lines),
	// and never empty: a zero-length read would never reach EOF.
	buf := make([]byte, min(jsonl.ChunkSize, r.Size()+1))
	skipped := x.split.Skipped
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		x.split.Feed(buf[:n], x.add)
		s.scannedBytes.Add(int64(n))
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if x.split.Skipped > skipped {
		s.log.Warn("skipped overlong transcript lines", zap.String("path", f.Name()), zap.Int("lines", x.split.Skipped-skipped))
	}
	e.idx = &x
	return nil
}

// appendedTo reports whether f still ends a line at pos, the cheap sign that
// it was appended to rather than rewritten.
func appendedTo(f *os.File, pos int64) bool {
	if pos == 0 {
		return true
	}
	var b [1]byte
	_, err := f.ReadAt(b[:], pos-1)
	return err == nil && b[0] == '\n'
}
