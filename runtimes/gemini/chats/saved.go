package chats

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sort"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// An index is persisted with its view, in tables of fixed-size entries
// that a restarted daemon reads in place: its first page reads a few
// records and checks each table with one loop of comparisons, rather than
// decoding every record of the replay into a new index and making its
// view again (for the bench's 100 MB chat file, ~108,000 records: 13.3 MB
// and 17,605 allocations, against 0.36 MB and 111 read in place, in
// BenchmarkReadFacts). The records are decoded only when something changes
// them (the file grew: see own).

// savedView is the view of an index as AppendFacts saved it, read in place
// from the facts ReadFacts was given.
type savedView struct {
	prompt string
	order  []int32 // each message's record (see view.order)
	recs   []byte  // recSize bytes per record (see appendRec)
	calls  []byte  // callSize bytes per tool-call id: its span in strs, sorted by the id
}

// A record in the saved table: its line, start, length and checksum, then
// where its strings (id, prompt, lists, in that order) begin in strs and
// the length of each, as little-endian uint32s; then whether it is visible.
// A persisted index is smaller than 64 MB (jsonl's bound), its strs too.
const (
	recSize  = 8*4 + 1
	callSize = 2 * 4
)

var le = binary.LittleEndian

// appendRec appends r to the saved table; its strings follow one another
// from its id's.
func appendRec(b []byte, r *rec) []byte {
	for _, v := range []uint32{uint32(r.line), uint32(r.start), uint32(r.n), r.sum, uint32(r.off), r.idN, r.promptN, r.listsN} {
		b = le.AppendUint32(b, v)
	}
	if r.visible {
		return append(b, 1)
	}
	return append(b, 0)
}

// rec is record i of the saved table.
func (s *savedView) rec(i int) rec {
	b := s.recs[i*recSize : (i+1)*recSize]
	u := func(k int) uint32 { return le.Uint32(b[4*k:]) }
	return rec{off: int(u(4)), idN: u(5), promptN: u(6), listsN: u(7), visible: b[32] != 0,
		line: int32(u(0)), start: int32(u(1)), n: int32(u(2)), sum: u(3)}
}

// call is tool-call id i of the sorted table, in x.strs.
func (s *savedView) call(x *index, i int) []byte {
	b := s.calls[i*callSize:]
	return x.bytesOf(span{int(le.Uint32(b)), le.Uint32(b[4:])})
}

// called reports whether id is a tool call of x's records (view.called).
func (s *savedView) called(x *index, id string) bool {
	n := len(s.calls) / callSize
	i := sort.Search(n, func(i int) bool { return string(s.call(x, i)) >= id })
	return i < n && string(s.call(x, i)) == id
}

// AppendFacts appends the replayed state (lineindex.Indexed): the header, the
// view's prompt and messages, then the records' strings, the records, and
// the sorted tool-call ids, each table led by its length.
func (x *index) AppendFacts(b []byte) []byte {
	v := x.snapshot("")
	for _, s := range []string{x.header.SessionID, x.header.ProjectHash, x.header.StartTime, x.header.LastUpdated, v.prompt} {
		b = lineindex.AppendString(b, s)
	}
	order := make([]byte, 0, 4*len(v.order))
	for _, i := range v.order {
		order = le.AppendUint32(order, uint32(i))
	}
	// The strings are written record by record into out, those of
	// replaced versions left out.
	out := &index{}
	var recs []byte
	var calls []span
	for _, r := range v.recs {
		r.off = add(out, x.bytesOf(r.allStrs())).off
		recs = appendRec(recs, &r)
		out.eachList(&r, func(call bool, id span) {
			if call {
				calls = append(calls, id)
			}
		})
	}
	slices.SortFunc(calls, func(a, b span) int { return bytes.Compare(out.bytesOf(a), out.bytesOf(b)) })
	table := make([]byte, 0, callSize*len(calls))
	for _, c := range calls {
		table = le.AppendUint32(le.AppendUint32(table, uint32(c.off)), c.n)
	}
	for _, t := range [][]byte{order, out.strs, recs, table} {
		b = lineindex.AppendString(b, string(t))
	}
	return b
}

var errFacts = errors.New("bad chat file facts")

// ReadFacts reads what AppendFacts wrote, into an index whose Lines are
// loaded, keeping b: its tables are read in place. Each entry is checked
// as the replay that wrote it guarantees (a record within its line and
// its strings within strs, a message one of the records, the tool-call
// ids sorted), so that a planted index cannot make a read go astray.
func (x *index) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	x.header = Header{r.String(), r.String(), r.String(), r.String()}
	s := &savedView{prompt: r.String()}
	order, strs := r.Bytes(), r.Bytes()
	s.recs, s.calls = r.Bytes(), r.Bytes()
	n := len(s.recs) / recSize
	if r.Bad || len(r.B) != 0 || len(order)%4 != 0 || len(s.recs)%recSize != 0 || len(s.calls)%callSize != 0 {
		return errFacts
	}
	*x = index{Index: x.Index, header: x.header, strs: strs, lazy: &lazyView{}, saved: s}
	lines := x.Lines()
	for i := range n {
		rc := s.rec(i)
		end := uint64(rc.off) + uint64(rc.idN) + uint64(rc.promptN) + uint64(rc.listsN)
		if rc.idN == 0 || end > uint64(len(strs)) || uint64(rc.line) >= uint64(len(lines)) ||
			int64(uint32(rc.start))+int64(uint32(rc.n)) > lines[rc.line].N {
			return errFacts
		}
	}
	s.order = make([]int32, len(order)/4)
	for j := range s.order {
		i := le.Uint32(order[4*j:])
		if uint64(i) >= uint64(n) {
			return errFacts
		}
		s.order[j] = int32(i)
	}
	for i := range len(s.calls) / callSize {
		c := s.calls[i*callSize:]
		if uint64(le.Uint32(c))+uint64(le.Uint32(c[4:])) > uint64(len(strs)) ||
			(i > 0 && bytes.Compare(s.call(x, i-1), s.call(x, i)) > 0) {
			return errFacts
		}
	}
	return nil
}
