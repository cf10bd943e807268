package chats

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// indexVersion names what add gathers, for persisted indexes: change it
// whenever add, lineOf, infoOf or the facts saved change, so that indexes
// saved by an older cdevd are replayed again rather than trusted.
const indexVersion = "gemini-chats-2"

// rec is where a record's latest version is, and what List and a page's
// count need of it (its info). It holds no pointer: its strings are spans
// of its index's strs, so that the GC neither scans records nor slows
// their copies (it was a tenth of a first read), and a persisted replay is
// loaded without a string or list allocated for each record.
type rec struct {
	id     span
	prompt span  // info.prompt
	lists  span  // info.responses, then info.calls (see addLists)
	line   int32 // its line's place in Lines()
	start  int32 // where it begins in the line (a $set holds several)
	n      int32
	sum    uint32
	flags  uint8 // info.context, info.visible
}

const (
	flagContext = 1 << iota
	flagVisible
	flagDead // a version positions moved to its id's first place
)

// span is a string of an index's strs: where it begins, its length.
type span struct{ off, n uint32 }

// str is the string s of x.strs, not a copy: bytes of strs below its
// length are never written again (appends only; own clips a shared strs).
func (x *index) str(s span) string { return borrowed(x.strs[s.off : s.off+s.n]) }

// borrowed is b as a string, not a copy: for bytes never written again.
func borrowed(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// grow makes room in x.strs for n more bytes, doubling it: append grows a
// big slice by a quarter, and those copies (each new page a fault) were a
// fifth of a first read's allocations.
func (x *index) grow(n int) {
	if cap(x.strs)-len(x.strs) < n {
		x.strs = jsonl.Grow(x.strs, max(n, len(x.strs), 4096))
	}
}

// addStr appends s to x.strs; x is its own.
func (x *index) addStr(s string) span {
	x.grow(len(s))
	off := len(x.strs)
	x.strs = append(x.strs, s...)
	return span{uint32(off), uint32(len(s))}
}

// addLists appends a record's lists to x.strs: each a count, then its
// strings, each led by its length; none when both are empty.
func (x *index) addLists(responses, calls []string) span {
	if len(responses) == 0 && len(calls) == 0 {
		return span{}
	}
	n := 2 * binary.MaxVarintLen64
	for _, id := range responses {
		n += binary.MaxVarintLen64 + len(id)
	}
	for _, id := range calls {
		n += binary.MaxVarintLen64 + len(id)
	}
	x.grow(n)
	off := len(x.strs)
	x.strs = binary.AppendUvarint(x.strs, uint64(len(responses)))
	for _, id := range responses {
		x.strs = jsonl.AppendString(x.strs, id)
	}
	x.strs = binary.AppendUvarint(x.strs, uint64(len(calls)))
	for _, id := range calls {
		x.strs = jsonl.AppendString(x.strs, id)
	}
	return span{uint32(off), uint32(len(x.strs) - off)}
}

// eachList calls fn with each id of r's lists: its function responses
// (call false), then its tool calls (call true).
func (x *index) eachList(r *rec, fn func(call bool, id string)) {
	if r.lists.n == 0 {
		return
	}
	d := jsonl.FactReader{B: x.strs[r.lists.off : r.lists.off+r.lists.n]}
	for _, call := range [2]bool{false, true} {
		n := d.Uvarint()
		for i := uint64(0); i < n && !d.Bad; i++ {
			fn(call, borrowed(d.Bytes()))
		}
	}
}

// isMessage is info.isMessage for r.
func (x *index) isMessage(r *rec, called func(id string) bool) bool {
	if r.flags&flagVisible != 0 {
		return true
	}
	msg := false
	x.eachList(r, func(call bool, id string) { msg = msg || (!call && !called(id)) })
	return msg
}

// index is a chat file replayed: the patch log's state, each record by
// where it is. Its kept Lines are those holding records.
type index struct {
	jsonl.Index
	header Header // first header's ids; times from the latest header or $set
	recs   []rec  // in order of their first version
	strs   []byte // the records' strings (see rec)
	// segs follow recs: records are never copied to grow (a copy of
	// records, pointers in each, was most of a replay's growth and of a
	// parallel replay's merge): a full part is followed by a new one, and a
	// merged part is kept where its scan put it. own joins them.
	segs [][]rec
	// pos is where each id is in recs; nil until a record is upserted (an
	// index loaded from disk may never need it).
	pos   *positions
	reset bool   // a $set of the message list was replayed (for Merge)
	self  *index // x itself once order and recs are x's own
	dead  int    // bytes of strs that no record refers to any more (see compact)
	// The header's strings are parts of strs (ReadFacts): copied before
	// strs is dropped, which they would otherwise keep whole.
	borrowsHeader bool
}

// own makes x's order and recs its own before they change: jsonl.Refresh
// extends a shallow copy of an index that readers may still hold.
func (x *index) own() {
	if x.self == x {
		return
	}
	x.recs = slices.Concat(append([][]rec{x.recs}, x.segs...)...)
	x.segs = nil
	x.strs = slices.Clip(x.strs) // an append copies: readers' strings stay
	x.ownHeader()                // not keeping the strs that copy replaces
	x.pos = x.pos.clone()
	x.self = x
}

// flat joins x.segs to x.recs; x is its own.
func (x *index) flat() {
	if len(x.segs) > 0 {
		x.recs = slices.Concat(append([][]rec{x.recs}, x.segs...)...)
		x.segs = nil
	}
}

// parts are x's records: recs, then each of segs.
func (x *index) parts() [][]rec { return append([][]rec{x.recs}, x.segs...) }

// nrecs is how many records x has.
func (x *index) nrecs() int {
	n := len(x.recs)
	for _, s := range x.segs {
		n += len(s)
	}
	return n
}

// at is the i-th of x's records.
func (x *index) at(i int32) *rec {
	if int(i) < len(x.recs) {
		return &x.recs[i]
	}
	i -= int32(len(x.recs))
	for _, s := range x.segs {
		if int(i) < len(s) {
			return &s[i]
		}
		i -= int32(len(s))
	}
	panic("chats: record out of range")
}

// clearRecs drops every record (a $set of the message list), and with
// them every reference to what they were kept in: their strings and places
// are allocated anew, not kept in what held the list replaced (whose
// capacity, and strings, a file of many $sets of a long list made grow
// with each one: 131 MB kept after 200 copies of 5,000 messages). What
// readers of an earlier version of x borrow stays theirs. x is then its
// own: nothing of it is shared.
func (x *index) clearRecs() {
	x.ownHeader()
	x.recs, x.segs, x.strs, x.pos, x.dead = nil, nil, nil, nil, 0
	x.reset, x.self = true, x
}

// add replays one line, reporting whether it holds records (its Span is
// then the next of Lines).
func (x *index) add(b []byte) bool {
	// lineOf, without a copy of the line it returns; borrowing, as upsert
	// copies what it keeps of a record.
	var l Line
	if !fastLine(b, true, &l) {
		var err error
		if l, err = parseLine(b); err != nil {
			return false // unparsable: skipped
		}
	}
	line := int32(len(x.Lines()))
	switch l.Kind {
	case KindHeader:
		x.header.patch(l.Header)
	case KindSet:
		x.header.patch(l.Set)
		if !l.HasMsgs {
			return false
		}
		x.clearRecs() // not own first: a copy of what is dropped
		for i := range l.SetMsgs {
			x.upsert(line, &l.SetMsgs[i])
		}
		return true
	case KindRecord:
		x.own()
		x.upsert(line, &l.Record)
		return true
	}
	return false
}

// upsert replaces the record with r's id in place, or appends it; x is
// its own.
func (x *index) upsert(line int32, r *Record) {
	var flags uint8
	if r.info.context {
		flags |= flagContext
	}
	if r.info.visible {
		flags |= flagVisible
	}
	rc := rec{line: line, start: int32(r.Start), n: int32(len(r.Raw)), sum: checksum(r.Raw), flags: flags}
	rc.prompt = x.addStr(r.info.prompt)
	rc.lists = x.addLists(r.info.responses, r.info.calls)
	if l := x.last(); len(*l) > 0 && x.str((*l)[len(*l)-1].id) == r.ID {
		x.replace(&(*l)[len(*l)-1], rc) // Gemini writes a record again as it grows
		return
	}
	if x.pos != nil {
		if i, ok := x.pos.add(x, r.ID, int32(x.nrecs())); ok {
			x.replace(x.at(i), rc)
			return
		}
	}
	// Without a table (a scan's), a record whose id came before is found
	// by positions, which the scan ends with (Finish).
	rc.id = x.addStr(r.ID)
	x.push(rc)
}

// Finish ends a scan (see jsonl.Indexed): it finds the records whose ids
// came before, if any, and drops the strings of the versions replaced.
func (x *index) Finish() {
	x.positions()
	x.compact()
}

// last is the part of x's records that ends them.
func (x *index) last() *[]rec {
	if n := len(x.segs); n > 0 {
		return &x.segs[n-1]
	}
	return &x.recs
}

// Expect sizes x's strings for total times those gathered so far (see
// jsonl.Indexed); its positions are made once its scan ends (Finish), at
// their size.
func (x *index) Expect(_, total float64) {
	if x.self != x {
		return // not a scan's own index
	}
	x.grow(int(float64(len(x.strs))*(total*1.1-1)) + 64)
}

// push appends r to x's records: to a new part when the last is full (of
// twice its size, up to maxSeg), so that none is copied to grow.
func (x *index) push(r rec) {
	l := x.last()
	if len(*l) == cap(*l) {
		if cap(x.recs) == 0 {
			x.recs = make([]rec, 0, 256)
			l = &x.recs
		} else {
			x.segs = append(x.segs, make([]rec, 0, min(2*cap(*l), maxSeg)))
			l = &x.segs[len(x.segs)-1]
		}
	}
	*l = append(*l, r)
}

// maxSeg bounds a part of the records: at 100 bytes a record, 6 MB.
const maxSeg = 1 << 16
