package chats

import "strings"

// What a replay keeps is what its final state needs, not what the file
// held: a $set of the message list drops the records it replaces
// (clearRecs), and the strings of a record's versions replaced by a later
// one (an upsert, Gemini writing a record again as it grows, or an attack
// writing one without end) are dropped once they are most of strs.

// replace puts r, a later version of the record at *old, in its place: it
// keeps old's id, whose strings r's were a repeat of, and counts old's
// other strings dead. x is its own.
func (x *index) replace(old *rec, r rec) {
	x.dead += int(old.prompt.n + old.lists.n)
	r.id = old.id
	*old = r
}

// compactMin is the dead bytes under which strs is left as it is: a chat
// file Gemini wrote has a few (each record written again as it grows), and
// copying them away would cost more than they do.
const compactMin = 64 << 10

// compact copies the strings x's records refer to into a new strs once
// dead ones are more than half of it: each copy then moves no more bytes
// than were appended since the last, so that a replay's cost and what it
// keeps stay in proportion to its final state. Readers of an earlier
// version of x keep the strs they borrow from. Only an index that is its
// own is compacted (a copy that jsonl.Refresh extends shares its records
// until own); another waits for a later replay.
func (x *index) compact() {
	if x.self != x || x.dead < compactMin || 2*x.dead < len(x.strs) {
		return
	}
	strs := make([]byte, 0, len(x.strs)-x.dead)
	move := func(s *span) {
		off := len(strs)
		strs = append(strs, x.strs[s.off:s.off+s.n]...)
		s.off = uint32(off)
	}
	for _, part := range x.parts() {
		for i := range part {
			r := &part[i]
			move(&r.id)
			move(&r.prompt)
			move(&r.lists)
		}
	}
	x.ownHeader()
	x.strs, x.dead = strs, 0
}

// ownHeader gives x's header strings of its own if they are parts of strs
// (see borrowsHeader), before strs is dropped.
func (x *index) ownHeader() {
	if x.borrowsHeader {
		h := &x.header
		h.SessionID, h.ProjectHash = strings.Clone(h.SessionID), strings.Clone(h.ProjectHash)
		h.StartTime, h.LastUpdated = strings.Clone(h.StartTime), strings.Clone(h.LastUpdated)
		x.borrowsHeader = false
	}
}
