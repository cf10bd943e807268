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

// snapshot makes the view of x, the index of the file at path.
func (x *index) snapshot(path string) *view {
	n := 0 // records with lists: about as many as tool calls
	parts := x.parts()
	for _, s := range parts {
		for i := range s {
			if s[i].lists.n > 0 {
				n++
			}
		}
	}
	v := &view{x: x, path: path, header: x.header, calls: make(map[string]bool, n), mtime: x.Info().ModTime().UnixNano()}
	for _, s := range parts {
		for i := range s {
			x.eachList(&s[i], func(call bool, id string) {
				if call {
					v.calls[id] = true
				}
			})
		}
	}
	for _, s := range parts {
		for i := range s {
			r := &s[i]
			if !x.isMessage(r, v.called) {
				continue
			}
			v.n++
			if v.prompt == "" {
				v.prompt = x.str(r.prompt)
			}
		}
	}
	return v
}

// entryOf is the entry of v's record r.
func (v *view) entryOf(r *rec) entry {
	x := v.x
	return entry{id: x.str(r.id), path: v.path, off: x.Lines()[r.line].Off + int64(r.start), n: int(r.n), sum: r.sum}
}

// all is every message of v, in order.
func (v *view) all() []*entry {
	if v.x == nil {
		return v.msgs
	}
	v.once.Do(func() {
		es := make([]entry, 0, v.n) // one allocation; never grown
		msgs := make([]*entry, 0, v.n)
		for _, s := range v.x.parts() {
			for i := range s {
				if r := &s[i]; v.x.isMessage(r, v.called) {
					es = append(es, v.entryOf(r))
					msgs = append(msgs, &es[len(es)-1])
				}
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
	parts := v.x.parts()
	k := 0 // messages met so far
	visit := func(r *rec) bool {
		if !v.x.isMessage(r, v.called) {
			return true
		}
		if k >= from {
			e := v.entryOf(r)
			out = append(out, &e)
		}
		k++
		return k < to
	}
	if desc {
		for p := len(parts) - 1; p >= 0; p-- {
			for i := len(parts[p]) - 1; i >= 0; i-- {
				if !visit(&parts[p][i]) {
					return out
				}
			}
		}
		return out
	}
	for _, s := range parts {
		for i := range s {
			if !visit(&s[i]) {
				return out
			}
		}
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
