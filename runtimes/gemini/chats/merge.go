package chats

// Merging the replays of a big file's parts (jsonl.Indexed): the later
// part's header patches, its records upsert the earlier part's.

import "slices"

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
// jsonl.Indexed), whose lines jsonl has already put after x's: y's records
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
