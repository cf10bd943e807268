package chats

import (
	"hash/crc32"
	"io"
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
type view struct {
	x      *index // made from
	header Header
	msgs   []*entry
	calls  map[string]bool // tool call ids of the gemini records
	prompt string          // the first real user text; "" in a phantom
	mtime  int64           // the file's modification time (UnixNano)
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
	v := &view{x: x, header: x.header, calls: make(map[string]bool, n), mtime: x.Info().ModTime().UnixNano()}
	for _, s := range parts {
		for i := range s {
			x.eachList(&s[i], func(call bool, id string) {
				if call {
					v.calls[id] = true
				}
			})
		}
	}
	lines := x.Lines()
	es := make([]entry, 0, x.nrecs()) // one allocation; never grown
	v.msgs = make([]*entry, 0, x.nrecs())
	for _, s := range parts {
		for i := range s {
			r := &s[i]
			if !x.isMessage(r, v.called) {
				continue
			}
			es = append(es, entry{id: x.str(r.id), path: path, off: lines[r.line].Off + int64(r.start), n: int(r.n), sum: r.sum})
			v.msgs = append(v.msgs, &es[len(es)-1])
			if v.prompt == "" {
				v.prompt = x.str(r.prompt)
			}
		}
	}
	return v
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
