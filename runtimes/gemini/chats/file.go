package chats

import (
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

// view is an immutable snapshot of a chat file: its messages in order.
// Only their number is counted when it is made: a page near either end
// finds its entries by walking the records from that end (page), and the
// list of them all (all) is made once something needs it. Making that list
// of a big file was most of the time a first page spent after its replay.
type view struct {
	x      *index // made from; nil for a view made with msgs (tests)
	path   string
	header Header
	n      int             // messages
	calls  map[string]bool // tool call ids of the gemini records
	prompt string          // the first real user text; "" in a phantom
	mtime  int64           // the file's modification time (UnixNano)

	once  sync.Once
	ready atomic.Bool // msgs is made
	msgs  []*entry    // every message, in order (see all)
}

func (v *view) called(id string) bool { return v.calls[id] }

// view is the view of x, the index of the file at path, made once: an
// index is never modified once a scan returned it (see lazyView).
func (x *index) view(path string) *view {
	x.lazy.once.Do(func() { x.lazy.v = x.snapshot(path) })
	return x.lazy.v
}

// lazyView is the view of one version of an index: each scan that makes
// or extends an index (Finish, Merge, ReadFacts) gives it a new one. It
// goes with its index when the cache drops that.
type lazyView struct {
	once sync.Once
	v    *view
}

// snapshot makes the view of x, the index of the file at path.
func (x *index) snapshot(path string) *view {
	v := &view{x: x, path: path, header: x.header, calls: map[string]bool{}, mtime: x.Info().ModTime().UnixNano()}
	for i := range x.recs {
		x.eachList(&x.recs[i].info, func(call bool, id []byte) {
			if call {
				v.calls[string(id)] = true
			}
		})
	}
	for i := range x.recs {
		if r := &x.recs[i]; x.isMessage(r, v.calls) {
			v.n++
			if v.prompt == "" {
				v.prompt = x.str(r.info.prompt)
			}
		}
	}
	return v
}

// entryOf is the entry of v's record r.
func (v *view) entryOf(r *rec) *entry {
	return &entry{id: v.x.str(r.id), path: v.path, off: v.x.Lines()[r.line].Off + int64(r.start), n: int(r.n), sum: r.sum}
}

// all is every message of v, in order.
func (v *view) all() []*entry {
	if v.x == nil {
		return v.msgs
	}
	v.once.Do(func() {
		msgs := make([]*entry, 0, v.n)
		for i := range v.x.recs {
			if r := &v.x.recs[i]; v.x.isMessage(r, v.calls) {
				msgs = append(msgs, v.entryOf(r))
			}
		}
		v.msgs = msgs
		v.ready.Store(true)
	})
	return v.msgs
}

// walkMax is how deep a page is found by walking the records from an end
// rather than from the list of every message.
const walkMax = 1000

// page is messages [from, to) of v (0 ≤ from ≤ to ≤ v.n), counted from the
// newest when desc, in that order.
func (v *view) page(from, to int, desc bool) []*entry {
	out := make([]*entry, 0, to-from)
	if from >= to {
		return out
	}
	if v.x == nil || v.ready.Load() || to > walkMax {
		all := v.all()
		for i := from; i < to; i++ {
			j := i
			if desc {
				j = v.n - 1 - i
			}
			out = append(out, all[j])
		}
		return out
	}
	recs := v.x.recs
	for k, i := 0, 0; i < len(recs) && k < to; i++ {
		r := &recs[i]
		if desc {
			r = &recs[len(recs)-1-i]
		}
		if !v.x.isMessage(r, v.calls) {
			continue
		}
		if k >= from {
			out = append(out, v.entryOf(r))
		}
		k++
	}
	return out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is CRC-32C, which the CPU computes at memory speed: every
// record's bytes pass through it on a first read.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

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
