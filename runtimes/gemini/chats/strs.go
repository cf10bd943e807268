package chats

import (
	"encoding/binary"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// The strings of an index's records (ids, prompts, function-response and
// tool-call ids) are spans of one byte slice, strs, not strings of their
// own, so that the records hold no pointer: with a string each, the
// collector's marking of the records was what a cold first page of the
// 100 MB bench chat took beyond 181e316's (the two the same with the
// collector off; 245k allocations against 88k). Versions replaced leave
// their bytes behind (dead), copied out when they outweigh the rest
// (compact).

// span is bytes of an index's strs: where they begin, and how many (one
// string is a part of one line, far below 4 GB; all of a file's strings
// need not be).
type span struct {
	off int
	n   uint32
}

// A record's strings follow one another in strs: its id, its prompt, then
// its lists (its function responses' ids, then its tool calls': see
// eachList); a version replaced leaves all three. One offset for the three
// keeps a record at 40 bytes, not 72: a first page of the bench's 100 MB
// chat file writes ~108,000 of them, half again in its merge.
func (r *rec) id() span      { return span{r.off, r.idN} }
func (r *rec) prompt() span  { return span{r.off + int(r.idN), r.promptN} }
func (r *rec) lists() span   { return span{r.off + int(r.idN) + int(r.promptN), r.listsN} }
func (r *rec) allStrs() span { return span{r.off, r.idN + r.promptN + r.listsN} }

// bytesOf is s in x.strs, not a copy.
func (x *index) bytesOf(s span) []byte {
	end := s.off + int(s.n)
	return x.strs[s.off:end:end]
}

// str is s in x.strs, copied.
func (x *index) str(s span) string { return string(x.bytesOf(s)) }

// add appends s to x.strs; x is its own.
func add(x *index, s []byte) span {
	if len(s) == 0 {
		return span{off: len(x.strs)}
	}
	if cap(x.strs)-len(x.strs) < len(s) {
		// Doubled: append grows a big slice by a quarter. From 256 bytes:
		// most chat files are small, and 4 KB each was a quarter of what a
		// cold List of 1,000 sessions allocated.
		x.strs = lineindex.Grow(x.strs, max(len(s), len(x.strs), 256))
	}
	off := len(x.strs)
	x.strs = append(x.strs, s...)
	return span{off, uint32(len(s))}
}

// addStrs appends the strings of t to x.strs and sets rc's; x is its own.
func addStrs(x *index, rc *rec, t *taken) {
	id, prompt := add(x, t.id), add(x, t.prompt)
	rc.off, rc.idN, rc.promptN, rc.visible = id.off, id.n, prompt.n, t.visible
	if len(t.responses) == 0 && len(t.calls) == 0 {
		return
	}
	off := len(x.strs)
	var buf [binary.MaxVarintLen64]byte
	for _, l := range [2][][]byte{t.responses, t.calls} {
		add(x, binary.AppendUvarint(buf[:0], uint64(len(l))))
		for _, id := range l {
			add(x, binary.AppendUvarint(buf[:0], uint64(len(id))))
			add(x, id)
		}
	}
	rc.listsN = uint32(len(x.strs) - off)
}

// eachList calls fn with each id of r's lists, a span of x.strs: its
// function responses' (call false), then its tool calls' (call true).
func (x *index) eachList(r *rec, fn func(call bool, id span)) {
	lists := r.lists()
	if lists.n == 0 {
		return
	}
	d := lineindex.FactReader{B: x.bytesOf(lists)}
	for _, call := range [2]bool{false, true} {
		for k := d.Uvarint(); k > 0 && !d.Bad; k-- {
			id := d.Bytes()
			fn(call, span{lists.off + int(lists.n) - len(d.B) - len(id), uint32(len(id))})
		}
	}
}

// isMessage is info.isMessage for r, calls the tool calls of the session.
func (x *index) isMessage(r *rec, calls map[string]bool) bool {
	if r.visible {
		return true
	}
	msg := false
	x.eachList(r, func(call bool, id span) { msg = msg || (!call && !calls[string(x.bytesOf(id))]) })
	return msg
}

// compact copies the strings of x's records into new strs, leaving out
// what replaced versions left; x is its own and has nothing pending.
func (x *index) compact() {
	old := x.strs
	x.strs, x.dead = make([]byte, 0, len(old)-int(x.dead)), 0
	for i := range x.recs {
		r := &x.recs[i]
		s := r.allStrs()
		r.off = add(x, old[s.off:s.off+int(s.n)]).off
	}
}
