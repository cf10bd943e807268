package jsonl

import "encoding/binary"

// AppendString appends s led by its length (a uvarint): how a persisted
// index and each index's facts (Indexed's AppendFacts) hold a string, which FactReader reads back.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// FactReader reads back what was appended with binary.AppendUvarint,
// binary.AppendVarint, binary.LittleEndian.AppendUint32, a byte, and
// AppendString: a persisted index and each index's facts (Indexed's AppendFacts). A read that runs
// short (or a varint that overflows) sets Bad; every read after it returns
// zero.
type FactReader struct {
	B   []byte // what is left to read
	Bad bool
}

func (r *FactReader) fail() { r.Bad, r.B = true, nil }

// Uvarint reads a binary.AppendUvarint.
func (r *FactReader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Varint reads a binary.AppendVarint.
func (r *FactReader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Uint32 reads a binary.LittleEndian.AppendUint32.
func (r *FactReader) Uint32() uint32 {
	if len(r.B) < 4 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(r.B)
	r.B = r.B[4:]
	return v
}

// Byte reads one byte.
func (r *FactReader) Byte() byte {
	if len(r.B) < 1 {
		r.fail()
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Bytes reads what AppendString wrote: a part of B, not a copy.
func (r *FactReader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.fail()
		return nil
	}
	s := r.B[:n:n]
	r.B = r.B[n:]
	return s
}

// String reads what AppendString wrote, copied.
func (r *FactReader) String() string { return string(r.Bytes()) }
