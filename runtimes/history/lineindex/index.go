// Package lineindex is the history store's (runtimes/history) index of a
// JSON Lines file: where the lines a format keeps are, and the facts it
// gathers besides; extended as the file grows (a big file scanned in parts),
// cached within a memory budget, and persisted so that a restart need not
// scan a big file again. A format embeds Index in its own index type.
package lineindex

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// Span locates one line in a file (without its newline).
type Span struct {
	Off int64
	N   int64
}

// Index is where the lines its owner kept are in one version of a JSON
// Lines file, up to its last complete line.
type Index struct {
	fi    os.FileInfo
	split jsonl.Splitter
	lines []Span
	shape *jsonl.Shape  // the keys of the lines a scan under way read (see Shape)
	part  int64         // in a full scan in parts, x's (see FoundBefore)
	first *atomic.Int64 // the earliest part that found it; nil outside one
	saved *mapping      // the saved index x was loaded from: mapped while x is reachable
}

// Indexed is an index type: a pointer to a struct embedding Index (base),
// with what scans and a Cache call on it, each written by its owner.
type Indexed[T any] interface {
	*T
	base() *Index
	// Merge takes in next, the index of the part of the file after x's
	// (its Lines already taken in): a big file is scanned in parts.
	Merge(next *T)
	// Expect is told, once early in a big scan, how much is to come, so
	// that the index sizes what it gathers once rather than growing it (the
	// copies, and the fresh pages each touches, were a fifth of a first
	// read): the bytes of x's part, and of all the lines x will hold (a
	// first part takes in the others), over those read so far.
	Expect(part, total float64)
	Finish() // ends each scan: what the index put off, it does then
	// AppendFacts appends what the index gathered besides its Lines, to be
	// persisted; ReadFacts reads that back.
	AppendFacts(b []byte) []byte
	ReadFacts(b []byte) error
	Size() int64 // the memory the index takes besides its Lines
}

// Shape remembers the keys of the lines the scan under way read, for its
// owner's Schema (ReadShaped): nil for a scan's first lines (a short file
// would spend more on it than it saves) and outside a scan.
func (x *Index) Shape() *jsonl.Shape { return x.shape }

// shapeAfter is how many lines a scan reads before it makes its jsonl.Shape.
const shapeAfter = 64

// FoundBefore reports whether, in a full scan in parts, a part before x's
// found what only the first finding of is kept (a first prompt).
func (x *Index) FoundBefore() bool { return x.first != nil && x.first.Load() < x.part }

// Found records that x's part found it (see FoundBefore).
func (x *Index) Found() {
	for x.first != nil {
		v := x.first.Load()
		if v <= x.part || x.first.CompareAndSwap(v, x.part) {
			return
		}
	}
}

func (x *Index) base() *Index { return x }

// Info is the file's version at x's last scan or load.
func (x *Index) Info() os.FileInfo { return x.fi }

// size is how much of the file x describes.
func (x *Index) size() int64 { return x.split.Pos + x.split.Partial }

// Lines are the kept lines, in file order. The slice must not be modified.
func (x *Index) Lines() []Span { return x.lines }

// current reports whether x still describes the file version fi: the same
// file, with the same size and modification time.
func (x *Index) current(fi os.FileInfo) bool {
	return os.SameFile(x.fi, fi) && x.size() == fi.Size() && x.fi.ModTime().Equal(fi.ModTime())
}

// Scan says what a refresh read.
type Scan struct {
	Full  bool  // the file was read from its start
	Bytes int64 // bytes read
}

// scanner takes a file's lines into an index: add takes each complete line
// (valid during the call), reporting whether to keep its Span; overlong
// ones are skipped, logged with what naming the file.
type scanner[T any, P Indexed[T]] struct {
	add    func(x P, line []byte) bool
	log    *zap.Logger
	what   string
	tuning Tuning
}

// Refresh is a Cache's refresh of old, untuned: for a format's tests.
func Refresh[T any, P Indexed[T]](ctx context.Context, old P, f *os.File, fi os.FileInfo,
	add func(x P, line []byte) bool, log *zap.Logger, what string) (P, Scan, error) {
	return scanner[T, P]{add: add, log: log, what: what}.refresh(ctx, old, f, fi)
}

// refresh returns old, which may be nil, brought up to date with f, whose
// current version is fi: old itself when unchanged; a copy extended by the
// appended bytes when the same file grew; else a full scan. old is never
// modified: a reader holding it may go on, and it stays if ctx ends a scan.
func (s scanner[T, P]) refresh(ctx context.Context, old P, f *os.File, fi os.FileInfo) (P, Scan, error) {
	if old != nil && old.base().current(fi) {
		return old, Scan{}, nil
	}
	if old == nil || !os.SameFile(old.base().fi, fi) || fi.Size() <= old.base().size() || !appendedTo(f, old.base().split.Pos) {
		return s.fullScan(ctx, f, fi)
	}
	// Extend a copy: appending to lines (or the owner's slices) cannot
	// change old's view of them, but Pending is rewritten in place.
	x := P(new(T))
	*x = *old
	b := x.base()
	b.split.Pending = append([]byte(nil), old.base().split.Pending...)
	b.fi = fi
	skipped := b.split.Skipped
	n, err := s.scanPart(ctx, x, f, b.size(), fi.Size(), 0)
	if err != nil {
		return nil, Scan{Bytes: n}, err
	}
	jsonl.WarnSkipped(s.log, s.what, f, b.split.Skipped-skipped)
	return x, Scan{Bytes: n}, nil
}

// scanPart takes the complete lines of f in [from, to) into x and returns
// how many bytes it read; into is how many bytes of lines x will hold once
// merged (0: no estimate). The file is read, not mapped: mapping saved a
// copy (11 of the 16 ms of splitting 100 MB on one core, 6 ms of a first
// page) but needed unsafe recovery from the faults of a file cut short
// under it; a first page of 100 MB is 30 to 46 ms without (target 100).
func (s scanner[T, P]) scanPart(ctx context.Context, x P, f *os.File, from, to, into int64) (int64, error) {
	b, seen := x.base(), 0
	defer func() { b.shape = nil }()
	keep := func(off int64, line []byte) {
		if seen++; seen == shapeAfter {
			b.shape = new(jsonl.Shape)
		}
		if s.add(x, line) {
			if len(b.lines) == cap(b.lines) {
				// Doubled, not grown by a quarter as append does: its
				// copies were a fifth of a first read's allocations. From
				// 16, not 256: 4 KB a session was half a first history's.
				b.lines = Grow(b.lines, max(len(b.lines), 16))
			}
			b.lines = append(b.lines, Span{off, int64(len(line))})
		}
	}
	// Never empty (a zero-length read never reaches EOF); pooled: one per
	// file was 37 of the 48 MB a first history of 1,000 sessions allocated.
	pooled := chunks.Get().(*[]byte)
	defer chunks.Put(pooled)
	buf := (*pooled)[:min(jsonl.ChunkSize, to-from+1)]
	n, err := jsonl.ReadRange(ctx, f, from, to, buf, func(chunk []byte, first bool) {
		b.split.Feed(chunk, keep)
		if first && into > 0 && to-from >= 4*jsonl.ChunkSize && len(chunk) > 0 {
			// Sized as Expect says, for lines of 16 bytes at least: a
			// head of short lines must not reserve much for long ones.
			part, total := float64(to-from)/float64(len(chunk)), float64(into)/float64(len(chunk))
			if want := int(min(float64(len(b.lines))*total*1.1, float64(into)/16)) + 16; want > cap(b.lines) {
				b.lines = Grow(b.lines, want-len(b.lines))
			}
			x.Expect(part, total)
		}
	})
	if err == nil {
		x.Finish()
	}
	return n, err
}

// chunks are scanPart's read buffers.
var chunks = sync.Pool{New: func() any { b := make([]byte, jsonl.ChunkSize); return &b }}

// Grow is slices.Grow without zeroing the room it makes, which touched
// every page of a reservation (a fault each) whether filled or not.
func Grow[S ~[]E, E any](s S, n int) S {
	if n <= cap(s)-len(s) {
		return s
	}
	g := make(S, len(s), len(s)+n)
	copy(g, s)
	return g
}

// fullScan indexes f from its start, in parts scanned at once when it is
// big. In one part (issue 30, cdevd bench back to back, loads 5 to 10),
// Claude's first page of a never-read 100 MB transcript took 148–194 ms
// against 39–106, past its target of 100; Codex's and Gemini's moved within
// their spread (one part took less CPU: Codex 93 CPU ms against 121).
func (s scanner[T, P]) fullScan(ctx context.Context, f *os.File, fi os.FileInfo) (P, Scan, error) {
	parts := min(s.tuning.parts(), fi.Size()/s.tuning.parallelMin())
	cuts := []int64{0}
	for i := int64(1); i < parts; i++ {
		c, err := lineAfter(f, fi.Size()*i/parts, fi.Size())
		if err != nil {
			return nil, Scan{Full: true}, err
		}
		if c > cuts[len(cuts)-1] && c < fi.Size() {
			cuts = append(cuts, c)
		}
	}
	cuts = append(cuts, fi.Size())
	xs := make([]P, len(cuts)-1)
	reads := make([]int64, len(xs))
	errs := make([]error, len(xs))
	var first atomic.Int64
	first.Store(maxParts)
	var wg sync.WaitGroup
	// The first part last, on this goroutine: one started for a small file
	// woke a thread (6,000 futex and nanosleep calls a history of 1,000).
	for i := len(xs) - 1; i >= 0; i-- {
		xs[i] = P(new(T))
		b := xs[i].base()
		b.split.Pos = cuts[i]
		if len(xs) > 1 {
			b.part, b.first = int64(i), &first
		}
		into := cuts[i+1] - cuts[i]
		if i == 0 {
			into = fi.Size() // the first part takes in the others' lines
		}
		scan := func() { reads[i], errs[i] = s.scanPart(ctx, xs[i], f, cuts[i], cuts[i+1], into) }
		if i > 0 {
			wg.Go(scan)
		} else {
			scan()
		}
	}
	wg.Wait()
	sc := Scan{Full: true}
	for _, n := range reads {
		sc.Bytes += n
	}
	if err := errors.Join(errs...); err != nil {
		return nil, sc, err
	}
	// Every part but the last ends just after a newline, so its splitter
	// holds nothing: the last one's state is the whole file's.
	x, b := xs[0], xs[0].base()
	for _, y := range xs[1:] {
		yb := y.base()
		b.lines = append(b.lines, yb.lines...)
		yb.split.Skipped += b.split.Skipped
		b.split = yb.split
		x.Merge(y)
	}
	b.fi, b.first = fi, nil
	jsonl.WarnSkipped(s.log, s.what, f, b.split.Skipped)
	return x, sc, nil
}

// lineAfter is the offset just after the first newline at or after off in
// f, or size when there is none.
func lineAfter(f *os.File, off, size int64) (int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), 64<<10)
	for {
		b, err := r.ReadSlice('\n')
		off += int64(len(b))
		switch err {
		case nil, io.EOF:
			return off, nil
		case bufio.ErrBufferFull:
		default:
			return 0, err
		}
	}
}

// appendedTo reports whether f still ends a line at pos: appended to, not
// rewritten.
func appendedTo(f *os.File, pos int64) bool {
	if pos == 0 {
		return true
	}
	var b [1]byte
	_, err := f.ReadAt(b[:], pos-1)
	return err == nil && b[0] == '\n'
}

// ReadPage calls fn with the offset and content (valid during the call) of
// a page of x's lines, read from f, open on the version x describes: from
// the offset-th on (with desc, from the last, backwards), at most limit,
// and within budget bytes (0: any) but for the first, so that a reply stays
// one bounded frame; it stops at fn's first error. A span no scan makes, or
// a panic, is Stale, wrapping ErrBadIndex: a Cache drops the index.
func (x *Index) ReadPage(f *os.File, offset, limit int, desc bool, budget int64, fn func(off int64, line []byte) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Stale(fmt.Errorf("read %s: %w: %v", f.Name(), ErrBadIndex, r))
		}
	}()
	total := len(x.lines)
	from, to := min(offset, total), min(offset+limit, total) // in the page's order
	var buf []byte
	var used int64 // bytes of the page's lines
	for i := from; i < to; i++ {
		sp := x.lines[i]
		if desc {
			sp = x.lines[total-1-i]
		}
		if sp.Off < 0 || sp.N < 0 || sp.N > jsonl.MaxLine {
			return Stale(fmt.Errorf("read %s: %w: line at %d of %d bytes", f.Name(), ErrBadIndex, sp.Off, sp.N))
		}
		if used += sp.N; i > from && budget > 0 && used > budget {
			return nil
		}
		// Read with the newlines around it: a span that is not a line (a
		// planted index, a file rewritten in place) shows at once.
		from, n := sp.Off-1, sp.N+2
		if sp.Off == 0 {
			from, n = 0, sp.N+1
		}
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if _, err := f.ReadAt(b, from); err != nil {
			return fmt.Errorf("read %s: %w", f.Name(), err)
		}
		if b[n-1] != '\n' || (sp.Off > 0 && b[0] != '\n') {
			return Stale(fmt.Errorf("read %s: %w: no line at %d", f.Name(), ErrBadIndex, sp.Off))
		}
		if err := fn(sp.Off, b[sp.Off-from:n-1]); err != nil {
			return err
		}
	}
	return nil
}

// ErrBadIndex is an index whose lines are not the file's (see ReadPage).
var ErrBadIndex = errors.New("bad index")
