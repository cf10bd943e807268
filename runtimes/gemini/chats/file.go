package chats

import (
	"hash/fnv"
	"io"
	"os"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// entry is one record's latest version: where it is, not what it says,
// so that the store holds little more than an index of the chat files.
type entry struct {
	id   string
	path string
	off  int64  // in the file
	n    int    // bytes
	sum  uint64 // FNV-1a of the record's bytes: Tail's test for a change
	info info
}

// state is a chat file replayed up to some offset.
type state struct {
	header Header // first header's ids; times from the latest header or $set
	order  []string
	recs   map[string]*entry
}

func newState() *state { return &state{recs: map[string]*entry{}} }

// apply replays one line of the file at path, found at off, onto s;
// unparsable lines are skipped.
func (s *state) apply(path string, off int64, b []byte) {
	l, err := parseLine(b)
	if err != nil {
		return
	}
	switch l.Kind {
	case KindHeader:
		s.patch(l.Header)
	case KindSet:
		s.patch(l.Set)
		if l.HasMsgs {
			s.order, s.recs = s.order[:0], make(map[string]*entry, len(l.SetMsgs))
			for _, r := range l.SetMsgs {
				s.upsert(path, off, r)
			}
		}
	case KindRecord:
		s.upsert(path, off, l.Record)
	}
}

func (s *state) patch(h Header) {
	if s.header.SessionID == "" {
		s.header.SessionID = h.SessionID
	}
	if s.header.ProjectHash == "" {
		s.header.ProjectHash = h.ProjectHash
	}
	if s.header.StartTime == "" {
		s.header.StartTime = h.StartTime
	}
	if h.LastUpdated != "" {
		s.header.LastUpdated = h.LastUpdated
	}
}

// upsert replaces the record with r's id in place, or appends it; r is
// part of the line at off.
func (s *state) upsert(path string, off int64, r Record) {
	e := &entry{id: r.ID, path: path, off: off + int64(r.Start), n: len(r.Raw), sum: checksum(r.Raw), info: r.info}
	if _, ok := s.recs[r.ID]; !ok {
		s.order = append(s.order, r.ID)
	}
	s.recs[r.ID] = e
}

// view is an immutable snapshot of a chat file: its messages in order.
type view struct {
	header Header
	msgs   []*entry
	calls  map[string]bool // tool call ids of the gemini records
	prompt string          // the first real user text; "" in a phantom
	mtime  int64           // the file's modification time (UnixNano)
}

func (v *view) called(id string) bool { return v.calls[id] }

// snapshot makes the view of s. Entries are never modified once made, so
// the view shares them.
func (s *state) snapshot(mtime int64) *view {
	v := &view{header: s.header, calls: map[string]bool{}, mtime: mtime}
	for _, id := range s.order {
		for _, c := range s.recs[id].info.calls {
			v.calls[c] = true
		}
	}
	for _, id := range s.order {
		e := s.recs[id]
		if e.info.isMessage(v.called) {
			v.msgs = append(v.msgs, e)
			if v.prompt == "" {
				v.prompt = e.info.prompt
			}
		}
	}
	return v
}

// chatFile is the cached replay of one path.
type chatFile struct {
	fi    os.FileInfo // the version replayed; nil before the first read
	split jsonl.Splitter
	st    *state
	view  *view
}

// scan is what one refresh read (for tests and benchmarks).
type scan struct {
	full  bool
	bytes int64
}

// refresh brings c up to date with f, whose current version is fi: nothing
// is read if fi is the version replayed; a file that is the same and only
// grew is read from where the last refresh stopped; anything else is
// replayed from the start.
func (c *chatFile) refresh(path string, f *os.File, fi os.FileInfo, buf []byte) (scan, error) {
	if c.fi != nil && os.SameFile(c.fi, fi) && c.fi.Size() == fi.Size() && c.fi.ModTime().Equal(fi.ModTime()) {
		return scan{}, nil
	}
	from := c.split.Pos + c.split.Partial
	sc := scan{}
	if c.fi == nil || !os.SameFile(c.fi, fi) || fi.Size() < from {
		c.split, c.st, from, sc.full = jsonl.Splitter{}, newState(), 0, true
	}
	r := io.NewSectionReader(f, from, fi.Size()-from)
	if err := jsonl.ReadLines(r, &c.split, buf, func(off int64, b []byte) { c.st.apply(path, off, b) }); err != nil {
		c.fi, c.view = nil, nil // replay again next time
		return sc, err
	}
	sc.bytes = fi.Size() - from
	c.fi, c.view = fi, c.st.snapshot(fi.ModTime().UnixNano())
	return sc, nil
}

func checksum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// read returns e's bytes from f, the file e is in, checking that they are
// still the record e describes: a file rewritten in place, keeping its size
// and time, is the only way they are not.
func (e *entry) read(f io.ReaderAt) ([]byte, error) {
	b := make([]byte, e.n)
	if _, err := f.ReadAt(b, e.off); err != nil {
		return nil, err
	}
	if checksum(b) != e.sum {
		return nil, errChanged
	}
	return b, nil
}
