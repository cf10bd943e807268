package chats

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/cdevd/cdevd/internal/jsonl"
)

var (
	_ jsonl.Merger[*index] = (*index)(nil)
	_ jsonl.Codec          = (*index)(nil)
	_ jsonl.Expecter       = (*index)(nil)
	_ jsonl.Finisher       = (*index)(nil)
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

// Finish ends a scan (see jsonl.Finisher): it finds the records whose ids
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
// jsonl.Expecter); its positions are made once its scan ends (Finish), at
// their size.
func (x *index) Expect(_, total float64) {
	if x.self != x {
		return // not a scan's own index
	}
	x.grow(int(float64(len(x.strs))*(total*1.1-1)) + 64)
}

// positions builds x.pos if it is not. Records taken without it (a scan
// takes each new one without looking its id up: looking up, a cache miss
// each among the many lines scanned in between, was a tenth of a scan;
// here the inserts follow one another) can repeat an id: the later version
// takes the earlier one's place, as upsert would have.
func (x *index) positions() {
	if x.pos != nil {
		return
	}
	x.pos = newPositions(x.nrecs())
	i, dead := int32(0), false
	for _, s := range x.parts() {
		for k := range s {
			r := &s[k]
			if j, ok := x.pos.add(x, x.str(r.id), i); ok {
				x.dead += int(r.id.n)
				x.replace(x.at(j), *r)
				r.flags |= flagDead
				dead = true
			}
			i++
		}
	}
	if !dead {
		return
	}
	// x is its own (only a scan's records repeat ids): each part loses its
	// moved versions where it is, none is joined or copied. The table only
	// holds first versions, which stay: their places are renumbered, not
	// found again (hashing every id twice was half of positions' time, and
	// Gemini writes every tool call twice).
	place := make([]int32, i) // by place before
	k, live := 0, int32(0)
	for _, s := range x.parts() {
		for j := range s {
			place[k] = live
			if s[j].flags&flagDead == 0 {
				live++
			}
			k++
		}
	}
	isDead := func(r rec) bool { return r.flags&flagDead != 0 }
	x.recs = slices.DeleteFunc(x.recs, isDead)
	for i := range x.segs {
		x.segs[i] = slices.DeleteFunc(x.segs[i], isDead)
	}
	x.segs = slices.DeleteFunc(x.segs, func(s []rec) bool { return len(s) == 0 })
	x.pos.renumber(place)
}

// positions maps record ids to their place in recs by a 64-bit hash of
// the id: an insert of a string key (hashed, its bytes compared on every
// probe) was a tenth of a first read; a hash rarely compares an id at all.
// Ids whose hash an earlier id has are kept by their string. The hashes are
// in a table of their own (open addressing, linear probing): Go's map of
// them still cost 140 ns an insert, most of it growth, a tenth of a replay.
type positions struct {
	slots []slot           // a power of two of them, at most half full
	n     int              // slots in use
	more  map[string]int32 // ids whose hash another id has; nil when none
}

// slot is an id's hash (0: empty) and the place of the first id that has
// it. It keeps the hash's top 32 bits, which also place it in the table: a
// slot of 8 bytes keeps a part's table mostly in the core's cache, and ids
// that share those bits are kept in more.
type slot struct {
	h uint32
	i int32
}

var idSeed = maphash.MakeSeed()

// idHash hashes a record id; a variable so that tests can make ids collide.
var idHash = func(id string) uint64 { return maphash.String(idSeed, id) }

// slotHash is what the table keeps of h: its top 32 bits, 0 marking an
// empty slot (kept as 1: two ids then share it, which more handles).
func slotHash(h uint64) uint32 { return max(uint32(h>>32), 1) }

func newPositions(n int) *positions {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &positions{slots: make([]slot, size)}
}

// find is the slot that holds h, or the empty one where it would go.
func (p *positions) find(h uint32) *slot {
	mask := uint32(len(p.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		if s := &p.slots[j]; s.h == h || s.h == 0 {
			return s
		}
	}
}

// put keeps i for h, which is not in p.
func (p *positions) put(h uint32, i int32) {
	if 2*(p.n+1) > len(p.slots) {
		p.reserve(p.n + 1)
	}
	*p.find(h) = slot{h, i}
	p.n++
}

// reserve makes room for n ids without growing again.
func (p *positions) reserve(n int) {
	size := len(p.slots)
	for size < 2*n {
		size *= 2
	}
	if size == len(p.slots) {
		return
	}
	old := p.slots
	p.slots = make([]slot, size)
	for _, s := range old {
		if s.h != 0 {
			*p.find(s.h) = s
		}
	}
}

// get is where id is in recs.
func (p *positions) get(x *index, id string) (int32, bool) {
	s := p.find(slotHash(idHash(id)))
	if s.h == 0 {
		return 0, false
	}
	if x.str(x.at(s.i).id) == id {
		return s.i, true
	}
	i, ok := p.more[id]
	return i, ok
}

// add is where id is in recs if it is there; else it records that id is at
// i. One hash of id and one lookup, not get's then set's (a replay's
// lookups were 8% of a first read).
func (p *positions) add(x *index, id string, i int32) (int32, bool) {
	h := slotHash(idHash(id))
	s := p.find(h)
	if s.h == 0 {
		p.put(h, i)
		return i, false
	}
	if x.str(x.at(s.i).id) == id {
		return s.i, true
	}
	if j, ok := p.more[id]; ok {
		return j, true
	}
	if p.more == nil {
		p.more = map[string]int32{}
	}
	p.more[strings.Clone(id)] = i // id may be a part of the line (lineOf)
	return i, false
}

// set records that id, not in p, is at i.
func (p *positions) set(x *index, id string, i int32) {
	h := slotHash(idHash(id))
	if s := p.find(h); s.h != 0 {
		if p.more == nil {
			p.more = map[string]int32{}
		}
		p.more[id] = i
		return
	}
	p.put(h, i)
}

// renumber moves every id at place i to place[i].
func (p *positions) renumber(place []int32) {
	for j := range p.slots {
		if s := &p.slots[j]; s.h != 0 {
			s.i = place[s.i]
		}
	}
	for id, i := range p.more {
		p.more[id] = place[i]
	}
}

func (p *positions) clone() *positions {
	if p == nil {
		return nil
	}
	return &positions{slots: slices.Clone(p.slots), n: p.n, more: maps.Clone(p.more)}
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

func (h *Header) patch(p Header) {
	if h.SessionID == "" {
		h.SessionID = p.SessionID
	}
	if h.ProjectHash == "" {
		h.ProjectHash = p.ProjectHash
	}
	if h.StartTime == "" {
		h.StartTime = p.StartTime
	}
	if p.LastUpdated != "" {
		h.LastUpdated = p.LastUpdated
	}
}

// Merge takes in the replay of the part of the file that follows x's (see
// jsonl.Merger), whose lines jsonl has already put after x's: y's records
// upsert x's, unless y replaced the whole list.
func (x *index) Merge(y *index) {
	shift := int32(len(x.Lines()) - len(y.Lines()))
	x.header.patch(y.header)
	x.own()
	if y.reset {
		x.clearRecs()
	}
	x.positions()
	// y's strings follow x's.
	base := uint32(len(x.strs))
	x.strs = append(x.strs, y.strs...)
	x.dead += y.dead
	rebase := func(r *rec) {
		r.line += shift
		r.id.off += base
		r.prompt.off += base
		r.lists.off += base
	}
	ys := y.parts()
	if !x.shares(y) {
		// The common case (parts of one file hold different records): y's
		// records follow x's where they are, in y's parts (not joined:
		// a copy), placed among x's lines (y's own: a part is merged once,
		// then dropped).
		for _, recs := range ys {
			if y.self != y {
				recs = slices.Clone(recs)
			}
			for i := range recs {
				rebase(&recs[i])
			}
			if len(recs) > 0 {
				x.segs = append(x.segs, recs)
			}
		}
	} else {
		x.flat()
		for _, s := range ys {
			for _, r := range s {
				rebase(&r)
				if i, ok := x.pos.get(x, x.str(r.id)); ok {
					x.dead += int(r.id.n)
					x.replace(&x.recs[i], r)
					continue
				}
				x.push(r)
			}
		}
	}
	// Not kept up to date with what was appended (the serial part of a
	// parallel replay): built again by the next put or Merge, if any.
	x.pos = nil
	x.compact()
}

// shares reports whether y has a record whose id one of x's has (x.pos
// built). It goes through y's table of positions, not y's records: a
// fingerprint x's table lacks is an id x lacks, and no id is hashed again
// (hashing and looking up each of y's ids were most of a merge, which
// follows the parallel part of a first read).
func (x *index) shares(y *index) bool {
	y.positions()
	yp := y.pos
	for _, s := range yp.slots {
		if s.h == 0 {
			continue
		}
		t := x.pos.find(s.h)
		if t.h == 0 {
			continue // no id of x has this fingerprint
		}
		id := y.str(y.at(s.i).id)
		if x.str(x.at(t.i).id) == id {
			return true
		}
		if _, ok := x.pos.more[id]; ok {
			return true
		}
	}
	for id := range yp.more {
		if _, ok := x.pos.get(x, id); ok {
			return true
		}
	}
	return false
}

// AppendFacts appends the replayed state (jsonl.Codec): the header, then
// each record's numbers and its strings, which ReadFacts keeps where they
// are in one copy of the facts (its strs) rather than a string each.
func (x *index) AppendFacts(b []byte) []byte {
	b = slices.Grow(b, x.factsSize()) // one allocation, not a doubling per MB of facts
	for _, s := range []string{x.header.SessionID, x.header.ProjectHash, x.header.StartTime, x.header.LastUpdated} {
		b = jsonl.AppendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(x.nrecs()))
	for _, s := range x.parts() {
		for i := range s {
			r := &s[i]
			b = binary.AppendUvarint(b, uint64(r.line))
			b = binary.AppendUvarint(b, uint64(r.start))
			b = binary.AppendUvarint(b, uint64(r.n))
			b = binary.LittleEndian.AppendUint32(b, r.sum)
			b = append(b, r.flags)
			b = jsonl.AppendString(b, x.str(r.id))
			b = jsonl.AppendString(b, x.str(r.prompt))
			b = jsonl.AppendString(b, x.str(r.lists))
		}
	}
	return b
}

// factsSize is the length of what AppendFacts appends.
func (x *index) factsSize() int {
	n := 0
	for _, s := range []string{x.header.SessionID, x.header.ProjectHash, x.header.StartTime, x.header.LastUpdated} {
		n += stringSize(s)
	}
	n += uvarintSize(uint64(x.nrecs()))
	for _, s := range x.parts() {
		for i := range s {
			r := &s[i]
			n += uvarintSize(uint64(r.line)) + uvarintSize(uint64(r.start)) + uvarintSize(uint64(r.n)) + 4 + 1
			for _, sp := range [...]span{r.id, r.prompt, r.lists} {
				n += uvarintSize(uint64(sp.n)) + int(sp.n)
			}
		}
	}
	return n
}

func uvarintSize(v uint64) int { return max(1, (bits.Len64(v)+6)/7) }

func stringSize(s string) int { return uvarintSize(uint64(len(s))) + len(s) }

var errFacts = errors.New("bad chat file facts")

// ReadFacts reads what AppendFacts wrote, into an index whose Lines are
// loaded: a record must lie within its line. Its strings stay where they
// are in strs, one copy of b: loading allocates nothing per record (a
// string and lists each were most of a restart's ReadFacts).
func (x *index) ReadFacts(b []byte) error {
	x.strs = slices.Clone(b)
	r := jsonl.FactReader{B: x.strs}
	str := func() span {
		s := r.Bytes()
		return span{uint32(len(x.strs) - len(r.B) - len(s)), uint32(len(s))}
	}
	x.header, x.borrowsHeader = Header{x.str(str()), x.str(str()), x.str(str()), x.str(str())}, true
	n := r.Uvarint()
	if r.Bad || n > uint64(len(r.B)) || len(x.strs) > math.MaxUint32 {
		return errFacts
	}
	lines := x.Lines()
	// Ids are not checked for repeats: AppendFacts writes none, and the
	// CRC of the persisted index vouches for what it wrote.
	x.recs, x.segs, x.pos, x.self, x.dead = make([]rec, n), nil, nil, x, 0
	for i := range x.recs {
		line, start, size := r.Uvarint(), r.Uvarint(), r.Uvarint()
		sum := r.Uint32()
		flags := r.Byte()
		rc := rec{id: str(), prompt: str(), lists: str(), line: int32(line), start: int32(start), n: int32(size), sum: sum, flags: flags}
		if r.Bad || rc.id.n == 0 || line >= uint64(len(lines)) || start > uint64(lines[line].N) || size > uint64(lines[line].N)-start {
			return errFacts
		}
		x.recs[i] = rc
	}
	if len(r.B) != 0 {
		return errFacts
	}
	return nil
}
