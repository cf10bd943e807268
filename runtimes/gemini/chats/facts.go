package chats

// A persisted replay (jsonl.Indexed): the header and each record's numbers
// and strings, read back into one copy without an allocation per record.

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// AppendFacts appends the replayed state (jsonl.Indexed): the header, then
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
