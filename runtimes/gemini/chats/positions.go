package chats

import (
	"hash/maphash"
	"maps"
)

// positions is where each record of an index is in its recs, found by a
// 64-bit hash of the record's id: a map keyed by the ids themselves made
// the collector mark every key during a first read, and with the records'
// own strings that marking was what the first page of a never-read 100 MB
// chat file spent beyond its reading (its time the same as 181e316's with
// the collector off, a third longer with it on). A map of hashes holds no
// pointer. An id whose hash an earlier id has is kept by its string, in
// more.
type positions struct {
	byHash map[uint64]int32
	more   map[string]int32 // nil until two ids share a hash
}

var idSeed = maphash.MakeSeed()

// idHash hashes a record id; a variable so that tests can make ids
// collide.
var idHash = func(id []byte) uint64 { return maphash.Bytes(idSeed, id) }

func newPositions(n int) *positions { return &positions{byHash: make(map[uint64]int32, n)} }

func (p *positions) clone() *positions {
	if p == nil {
		return nil
	}
	return &positions{maps.Clone(p.byHash), maps.Clone(p.more)}
}

// find is where id is in x.recs, if it is there.
func (p *positions) find(x *index, id []byte) (int32, bool) {
	if j, ok := p.byHash[idHash(id)]; ok && string(x.bytesOf(x.recs[j].id())) == string(id) {
		return j, true
	}
	j, ok := p.more[string(id)]
	return j, ok
}

// A filter is a bit for each id of a positions, by its hash: 2^20 bits, 128
// KB, which a core's cache holds where the map is megabytes. An id whose bit
// is clear is not there (an id in more shares its hash with one in byHash).
type filter []uint64

func (p *positions) filter() filter {
	f := make(filter, 1<<14)
	for h := range p.byHash {
		f[h>>6%(1<<14)] |= 1 << (h % 64)
	}
	return f
}

func (f filter) may(h uint64) bool { return f[h>>6%(1<<14)]&(1<<(h%64)) != 0 }

// add is where id is in x.recs, found true, if it is there; else it
// records that id is at i.
func (p *positions) add(x *index, id []byte, i int32) (int32, bool) {
	h := idHash(id)
	j, ok := p.byHash[h]
	switch {
	case !ok:
		p.byHash[h] = i
		return i, false
	case string(x.bytesOf(x.recs[j].id())) == string(id):
		return j, true
	}
	if j, ok := p.more[string(id)]; ok {
		return j, true
	}
	if p.more == nil {
		p.more = map[string]int32{}
	}
	p.more[string(id)] = i
	return i, false
}
