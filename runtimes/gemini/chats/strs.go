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

// recInfo is a record's info (see info) in its index's strs.
type recInfo struct {
	prompt  span
	lists   span // its function responses' ids, then its tool calls' (see eachList)
	visible bool
}

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
		return span{}
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

// addInfo appends the strings of r's info to x.strs; x is its own.
func addInfo(x *index, r *taken) recInfo {
	ri := recInfo{prompt: add(x, r.prompt), visible: r.visible}
	if len(r.responses) == 0 && len(r.calls) == 0 {
		return ri
	}
	off := len(x.strs)
	var buf [binary.MaxVarintLen64]byte
	for _, l := range [2][][]byte{r.responses, r.calls} {
		add(x, binary.AppendUvarint(buf[:0], uint64(len(l))))
		for _, id := range l {
			add(x, binary.AppendUvarint(buf[:0], uint64(len(id))))
			add(x, id)
		}
	}
	ri.lists = span{off, uint32(len(x.strs) - off)}
	return ri
}

// size is the bytes of x.strs ri's strings take.
func (ri *recInfo) size() int64 { return int64(ri.prompt.n) + int64(ri.lists.n) }

// eachList calls fn with each id of ri's lists, a span of x.strs: its
// function responses' (call false), then its tool calls' (call true).
func (x *index) eachList(ri *recInfo, fn func(call bool, id span)) {
	if ri.lists.n == 0 {
		return
	}
	d := lineindex.FactReader{B: x.bytesOf(ri.lists)}
	for _, call := range [2]bool{false, true} {
		for k := d.Uvarint(); k > 0 && !d.Bad; k-- {
			id := d.Bytes()
			fn(call, span{ri.lists.off + int(ri.lists.n) - len(d.B) - len(id), uint32(len(id))})
		}
	}
}

// isMessage is info.isMessage for r, calls the tool calls of the session.
func (x *index) isMessage(r *rec, calls map[string]bool) bool {
	if r.info.visible {
		return true
	}
	msg := false
	x.eachList(&r.info, func(call bool, id span) { msg = msg || (!call && !calls[string(x.bytesOf(id))]) })
	return msg
}

// compact copies the strings of x's records into new strs, leaving out
// what replaced versions left; x is its own and has nothing pending.
func (x *index) compact() {
	old := x.strs
	x.strs, x.dead = make([]byte, 0, len(old)-int(x.dead)), 0
	move := func(s span) span { return add(x, old[s.off:s.off+int(s.n)]) }
	for i := range x.recs {
		r := &x.recs[i]
		r.id, r.info.prompt, r.info.lists = move(r.id), move(r.info.prompt), move(r.info.lists)
	}
}
