package chats

import (
	"cmp"
	"maps"
	"reflect"
	"slices"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// indexVersion names what add gathers, for persisted indexes: change it
// whenever add, the reading of lines (lineReader) or the facts saved
// change, so that indexes an older cdevd saved are replayed, not trusted.
const indexVersion = "gemini-chats-6"

// rec is where a record's latest version is (its line's place in Lines,
// where it begins in the line, its length and a checksum of its bytes),
// and what List and a page's count need of it (see info). Its strings are
// in its index's strs, from off (see rec.id).
type rec struct {
	off                  int
	idN, promptN, listsN uint32
	line                 int32
	start                int32 // a $set holds several records in a line
	n                    int32
	sum                  uint32
	visible              bool
}

// index is a chat file replayed: the patch log's state, each record by
// where it is. Its kept Lines are those holding records.
type index struct {
	lineindex.Index
	header Header // first header's ids; times from the latest header or $set
	// recs are in order of their first version, but for the last pending:
	// records taken since the last dedupe, which may repeat an id.
	recs         []rec
	pending      int
	pendingBytes int64
	// pos is where each id of the deduped records is in recs; nil until a
	// dedupe needs it (a persisted index loaded for a page never does, nor
	// a merged one until its file grows: see Merge).
	pos   *positions
	strs  []byte // the records' strings (see span)
	dead  int64  // bytes of strs no record holds
	want  int    // the records Expect foresaw
	reset bool   // a $set of the message list was replayed (for Merge)
	self  *index // x itself once recs, pos and strs are x's own (see own)
	lazy  *lazyView
	// saved is the view x was persisted with, when x was read with it
	// (ReadFacts): its records are there, not in recs, until x changes.
	saved  *savedView
	reader lineReader // add's, reused from line to line
}

// Finish ends a scan (lineindex.Indexed): what was read makes a new view.
func (x *index) Finish() {
	x.dedupe()
	x.lazy = &lazyView{}
	x.reader = lineReader{} // nor the last line's bytes held, nor its room
}

// own makes x's recs and pos its own before they change: lineindex.Refresh
// extends a shallow copy of an index that readers may still hold. A saved
// view's records are decoded then: the view no longer describes x.
func (x *index) own() {
	if x.self != x {
		// strs is appended to, never written below its length: clipped,
		// the next append copies it.
		x.recs, x.pos, x.strs, x.self, x.saved = slices.Clone(x.records()), x.pos.clone(), slices.Clip(x.strs), x, nil
	}
}

// records is x's records, those of a saved view decoded.
func (x *index) records() []rec {
	if s := x.saved; s != nil {
		recs := make([]rec, len(s.recs)/recSize)
		for i := range recs {
			recs[i] = s.rec(i)
		}
		return recs
	}
	return x.recs
}

// clear drops every record (a $set of the message list), and what Expect
// foresaw of them.
func (x *index) clear() {
	*x = index{Index: x.Index, header: x.header, reset: true, lazy: x.lazy, reader: x.reader}
	x.self = x
}

// add replays one line, reporting whether it holds records (its Span is
// then the next of Lines). A record's strings are copied from the line
// into strs, none made on the way.
func (x *index) add(b []byte) bool {
	line, held := int32(len(x.Lines())), false
	var before index // x before a list replaced its records
	listed := false
	err := x.reader.read(x.Shape(), b, func(kind Kind, h *Header, r *taken) {
		switch {
		case h != nil:
			x.header.patch(*h)
		case kind == KindSet && r == nil: // the list replaced
			before, listed = *x, true
			x.clear()
			held = true
		default:
			x.own()
			take(x, line, r)
			held = true
		}
	})
	if err != nil && listed {
		*x = before // a list amiss part way: the line skipped whole
	}
	return err == nil && held
}

// Records are deduped in batches of at most dedupeBatch, or dedupeBytes of
// their strings: a record looked up by its id as it was read, a cache miss
// each among the lines scanned in between, was a seventh of a first read;
// a batch's lookups follow one another. The bytes bound what records
// written again and again hold until then.
const (
	dedupeBatch = 4096
	dedupeBytes = 1 << 20
)

// take takes in r, found in line; x is its own.
func take(x *index, line int32, r *taken) {
	rc := rec{line: line, start: int32(r.start), n: int32(len(r.raw)), sum: checksum(r.raw)}
	before := len(x.strs)
	addStrs(x, &rc, r)
	if n := len(x.recs); n > 0 && string(x.bytesOf(x.recs[n-1].id())) == string(r.id) {
		// Gemini writes a record again as it grows, on the next line.
		last := &x.recs[n-1]
		x.dead += int64(last.allStrs().n)
		*last = rc
	} else {
		x.recs = append(x.recs, rc)
		x.pending++
	}
	if x.pendingBytes += int64(len(x.strs) - before); x.pending >= dedupeBatch || x.pendingBytes >= dedupeBytes {
		x.dedupe()
	}
}

// dedupe takes the pending records in: each replaces the record with its
// id in place (the last version wins, in the place of the first), or is
// kept where it is; x is its own when any is pending. Then it compacts
// strs if replaced versions left more of it than the records hold.
func (x *index) dedupe() {
	if x.pending > 0 {
		x.takePending()
	}
	x.pendingBytes = 0
	if live := int64(len(x.strs)) - x.dead; x.self == x && x.dead > 64<<10 && x.dead > live {
		x.compact()
	}
}

func (x *index) takePending() {
	w := len(x.recs) - x.pending
	if x.pos == nil {
		x.pos = newPositions(max(x.want, len(x.recs)))
		for i := range x.recs[:w] {
			x.pos.add(x, x.bytesOf(x.recs[i].id()), int32(i))
		}
	}
	for i := w; i < len(x.recs); i++ {
		r := x.recs[i]
		if j, ok := x.pos.add(x, x.bytesOf(r.id()), int32(w)); ok {
			x.dead += int64(x.recs[j].allStrs().n)
			x.recs[j] = r
			continue
		}
		x.recs[w] = r
		w++
	}
	clear(x.recs[w:])
	if cap(x.recs) > 2*max(w, x.want) {
		// Most were versions written again: the room they took goes.
		x.recs = slices.Clone(x.recs[:w])
	}
	x.recs, x.pending = x.recs[:w], 0
}

// recBytes is what a record takes besides its strings: itself, its place
// in pos, and the entry and tool-call id of the view a Store makes of it.
var recBytes = int64(reflect.TypeFor[rec]().Size()+reflect.TypeFor[entry]().Size()) + 96

// Size is the memory x takes besides its Lines (lineindex.Indexed), with the
// view a Store makes of it while it is cached.
func (x *index) Size() int64 {
	n := int64(cap(x.recs))*recBytes + int64(cap(x.strs))
	if s := x.saved; s != nil {
		n += int64(len(s.recs) + 4*len(s.order) + len(s.calls))
	}
	return n
}

// Expect sizes x's records and their strings for total times those
// gathered so far (see lineindex.Indexed): growing them by copies was a
// quarter of a first read.
func (x *index) Expect(_, total float64) {
	if x.self != x {
		return // not a scan's own index
	}
	x.dedupe() // the records so far, not their versions
	x.want = int(float64(len(x.recs))*total*1.1) + 16
	x.recs = lineindex.Grow(x.recs, x.want-len(x.recs))
	x.strs = lineindex.Grow(x.strs, int(float64(len(x.strs))*total*1.1)-len(x.strs))
	if x.pos != nil { // made small by that dedupe: growing it was a tenth of a merge
		pos := newPositions(x.want)
		maps.Copy(pos.byHash, x.pos.byHash)
		pos.more = x.pos.more
		x.pos = pos
	}
}

// patch takes in p, a later header or $set: the ids and start are the
// first given, the last update the latest.
func (h *Header) patch(p Header) {
	h.SessionID, h.ProjectHash = cmp.Or(h.SessionID, p.SessionID), cmp.Or(h.ProjectHash, p.ProjectHash)
	h.StartTime, h.LastUpdated = cmp.Or(h.StartTime, p.StartTime), cmp.Or(p.LastUpdated, h.LastUpdated)
}

// Merge takes in the replay of the part of the file that follows x's (see
// lineindex.Indexed), whose lines jsonl has already put after x's: y's header
// patches x's, y's records upsert x's, unless y replaced the whole list.
func (x *index) Merge(y *index) {
	shift := int32(len(x.Lines()) - len(y.Lines()))
	x.header.patch(y.header)
	x.own()
	if y.reset {
		x.clear()
	}
	x.lazy = &lazyView{}
	x.recs = lineindex.Grow(x.recs, len(y.recs))
	base := len(x.strs)
	x.strs = append(lineindex.Grow(x.strs, len(y.strs)), y.strs...)
	x.dead += y.dead
	// y's records are deduped (its Finish): each is looked up among x's only
	// where a filter of x's ids says it may be there. Most are new, and a
	// lookup each in pos, a cache miss, was 8 of the 9.4 ms a merge took;
	// with the filter it takes 3.8 (the bench's 100 MB first page, medians
	// of 32 runs). pos then lacks them: it is dropped, made again by the
	// next dedupe (the file grew).
	if x.pos == nil && len(x.recs) > 0 { // dropped by an earlier merge
		x.pending = len(x.recs)
		x.takePending()
	}
	var in filter
	if x.pos != nil {
		in = x.pos.filter()
	}
	for _, r := range y.recs {
		r.line += shift
		r.off += base
		if id := x.bytesOf(r.id()); in != nil && in.may(idHash(id)) {
			if j, ok := x.pos.find(x, id); ok {
				x.dead += int64(x.recs[j].allStrs().n)
				x.recs[j] = r
				continue
			}
		}
		x.recs = append(x.recs, r)
	}
	x.pos = nil
	x.dedupe()
}
