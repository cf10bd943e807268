package chats

import (
	"errors"
	"hash/crc32"
	"io"
	"sync"
	"sync/atomic"
)

// entry is one record's latest version: where it is, not what it says,
// so that the store holds little more than an index of the chat files.
type entry struct {
	id   string
	path string
	off  int64  // in the file
	n    int    // bytes
	sum  uint32 // of the record's bytes: Tail's test for a change
}

// view is an immutable snapshot of a chat file: its messages in order, by
// their records' places (order), so that a page makes only its own
// entries; the list of them all is made once something needs it (for a big
// file, most of a first page after its replay). A saved view reads the
// records and tool calls in place (see savedView).
type view struct {
	x      *index // made from; nil for a view made with msgs (tests)
	path   string
	header Header
	n      int             // messages
	calls  map[string]bool // tool call ids of the gemini records; nil when saved
	prompt string          // the first real user text; "" in a phantom
	mtime  int64           // the file's modification time (UnixNano)
	order  []int32         // each message's place in recs (or saved's)
	recs   []rec           // x's records; nil when saved
	saved  *savedView

	once  sync.Once
	ready atomic.Bool // msgs is made
	msgs  []*entry    // every message, in order (see all)
}

func (v *view) called(id string) bool {
	if v.saved != nil {
		return v.saved.called(v.x, id)
	}
	return v.calls[id]
}

// view is the view of x, the index of the file at path, made once: an
// index is never modified once a scan returned it (see lazyView).
func (x *index) view(path string) *view {
	x.lazy.once.Do(func() {
		if s := x.saved; s != nil {
			x.lazy.v = &view{x: x, path: path, header: x.header, n: len(s.order), prompt: s.prompt, mtime: x.Info().ModTime().UnixNano(), order: s.order, saved: s}
		} else {
			x.lazy.v = x.snapshot(path)
		}
	})
	return x.lazy.v
}

// lazyView is the view of one version of an index (each scan that makes or
// extends one gives it a new one), dropped with it.
type lazyView struct {
	once sync.Once
	v    *view
}

// snapshot makes the view of x, the index of the file at path, from its
// records.
func (x *index) snapshot(path string) *view {
	recs := x.records()
	v := &view{x: x, path: path, header: x.header, mtime: x.Info().ModTime().UnixNano(), recs: recs}
	// The tool calls' ids are substrings of one string, and their set is
	// made at its size: a string each, and the set grown as they came,
	// were half of making the view of the bench's 100 MB chat file.
	var all []byte
	var lens []uint32
	for i := range recs {
		x.eachList(&recs[i], func(call bool, id span) {
			if call {
				all, lens = append(all, x.bytesOf(id)...), append(lens, id.n)
			}
		})
	}
	s := string(all)
	v.calls = make(map[string]bool, len(lens))
	for _, n := range lens {
		v.calls[s[:n]], s = true, s[n:]
	}
	v.order = make([]int32, 0, len(recs))
	for i := range recs {
		if r := &recs[i]; x.isMessage(r, v.calls) {
			v.order = append(v.order, int32(i))
			if v.prompt == "" {
				v.prompt = x.str(r.prompt())
			}
		}
	}
	v.n = len(v.order)
	return v
}

// entry is the entry of v's message j.
func (v *view) entry(j int) *entry {
	var r rec
	if v.saved != nil {
		r = v.saved.rec(int(v.order[j]))
	} else {
		r = v.recs[v.order[j]]
	}
	return &entry{id: v.x.str(r.id()), path: v.path, off: v.x.Lines()[r.line].Off + int64(r.start), n: int(r.n), sum: r.sum}
}

// all is every message of v, in order.
func (v *view) all() []*entry {
	if v.x == nil {
		return v.msgs
	}
	v.once.Do(func() {
		msgs := make([]*entry, v.n)
		for j := range msgs {
			msgs[j] = v.entry(j)
		}
		v.msgs = msgs
		v.ready.Store(true)
	})
	return v.msgs
}

// pageOf is items [from, to) of n, counted from the newest when desc, in
// that order: at(j) is item j.
func pageOf(n, from, to int, desc bool, at func(j int) *entry) []*entry {
	out := make([]*entry, 0, to-from)
	for i := from; i < to; i++ {
		j := i
		if desc {
			j = n - 1 - i
		}
		out = append(out, at(j))
	}
	return out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is CRC-32C, which the CPU computes at memory speed: every
// record's bytes pass through it on a first read.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// errChanged says a record is no longer where the cached replay has it.
var errChanged = errors.New("record changed")

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
