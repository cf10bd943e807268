package jsonl

import (
	"context"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
)

// Span locates one line in a file (without its newline).
type Span struct {
	Off int64
	N   int64
}

// Index is what one scan of a JSON Lines file learned: where the lines its
// owner kept are. It covers the file up to the end of its last complete
// line, as of one file version. An owner embeds it in its own index type
// next to what else it gathers from the lines (titles, counts); Refresh
// keeps both up to date together.
type Index struct {
	fi    os.FileInfo
	split Splitter
	lines []Span
}

// base gives Refresh the Index embedded in its owner.
func (x *Index) base() *Index { return x }

// Info is the file version x describes.
func (x *Index) Info() os.FileInfo { return x.fi }

// Lines are the kept lines, in file order. The slice must not be modified.
func (x *Index) Lines() []Span { return x.lines }

// Indexed is an index type that embeds Index: a pointer to its owner's
// struct, whose unexported base method only embedding provides.
type Indexed[T any] interface {
	*T
	base() *Index
}

// Current reports whether x, which may be nil, still describes the file
// version fi: the same file, with the same size and modification time.
func Current[T any, P Indexed[T]](x P, fi os.FileInfo) bool {
	if x == nil {
		return false
	}
	b := x.base()
	return os.SameFile(b.fi, fi) && b.fi.Size() == fi.Size() && b.fi.ModTime().Equal(fi.ModTime())
}

// Scan says what a Refresh read.
type Scan struct {
	Full  bool  // the file was read from its start
	Bytes int64 // bytes read
}

// Refresh returns old, which may be nil, brought up to date with f, whose
// current version is fi: old itself when unchanged; a copy extended by only
// the appended bytes when the same file grew; a new index from a full scan
// when the file is new, shrank, was replaced or rewritten. add takes each
// new complete line (its content valid only during the call) into the
// index being built and reports whether to keep its Span in Lines. Lines
// too long to hold are skipped and logged with what naming the file. old
// is never modified, so that it stays intact if ctx ends the scan and a
// reader holding it may go on using it.
func Refresh[T any, P Indexed[T]](ctx context.Context, old P, f *os.File, fi os.FileInfo,
	add func(x P, line []byte) bool, log *zap.Logger, what string) (P, Scan, error) {
	if Current(old, fi) {
		return old, Scan{}, nil
	}
	x := P(new(T))
	var sc Scan
	var ob *Index
	if old != nil {
		ob = old.base()
	}
	if ob != nil && os.SameFile(ob.fi, fi) && fi.Size() > ob.fi.Size() && appendedTo(f, ob.split.Pos) {
		// Extend a copy, so that old stays intact if ctx ends the scan.
		// Appending to lines cannot change old's view of them (nor can the
		// owner's appending to its own slices); Pending is rewritten in place,
		// so it is copied.
		*x = *old
		x.base().split.Pending = append([]byte(nil), ob.split.Pending...)
	} else {
		sc.Full = true
	}
	b := x.base()
	b.fi = fi
	from := b.split.Pos + b.split.Partial
	r := io.NewSectionReader(f, from, fi.Size()-from)
	// Sized to the work when small (the common case: a few appended lines),
	// and never empty: a zero-length read would never reach EOF.
	buf := make([]byte, min(ChunkSize, r.Size()+1))
	keep := func(off int64, line []byte) {
		if add(x, line) {
			b.lines = append(b.lines, Span{off, int64(len(line))})
		}
	}
	skipped := b.split.Skipped
	for {
		if err := ctx.Err(); err != nil {
			return nil, sc, err
		}
		n, err := r.Read(buf)
		b.split.Feed(buf[:n], keep)
		sc.Bytes += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, sc, err
		}
	}
	if b.split.Skipped > skipped {
		log.Warn("skipped overlong "+what+" lines", zap.String("path", f.Name()), zap.Int("lines", b.split.Skipped-skipped))
	}
	return x, sc, nil
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

// ReadPage reads one page of x's lines from f, which must be open on the
// file version x describes, calling fn with each line's offset and content
// (valid only during the call) in page order: from the offset-th line on,
// at most limit lines; with desc, offset counts from the last line and the
// page runs backwards. It stops at fn's first error and returns it.
func (x *Index) ReadPage(f *os.File, offset, limit int, desc bool, fn func(off int64, line []byte) error) error {
	total := len(x.lines)
	from, to := min(offset, total), min(offset+limit, total) // in the page's order
	var buf []byte
	for i := from; i < to; i++ {
		sp := x.lines[i]
		if desc {
			sp = x.lines[total-1-i]
		}
		if int64(cap(buf)) < sp.N {
			buf = make([]byte, sp.N)
		}
		b := buf[:sp.N]
		if _, err := f.ReadAt(b, sp.Off); err != nil {
			return fmt.Errorf("read %s: %w", f.Name(), err)
		}
		if err := fn(sp.Off, b); err != nil {
			return err
		}
	}
	return nil
}
