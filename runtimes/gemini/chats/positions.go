package chats

// Record positions: the table that finds a record by a 64-bit hash of its
// id, built once a scan ends (moving a repeated id to its first place).

import (
	"hash/maphash"
	"maps"
	"slices"
	"strings"
)

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
