package lineindex

import "encoding/binary"

// AppendString appends s led by its length (a uvarint): how a persisted
// index and its facts hold a string.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// FactReader reads back what binary's AppendUvarint, AppendVarint and
// LittleEndian.AppendUint32, a byte, and AppendString appended. A read that
// runs short (or overflows) sets Bad; every read after it returns zero.
type FactReader struct {
	B   []byte // what is left to read
	Bad bool
}

// took consumes the n bytes v was read from; n <= 0 sets Bad, gives zero.
func took[V any](r *FactReader, v V, n int) V {
	if n <= 0 {
		r.Bad, r.B = true, nil
		var zero V
		return zero
	}
	r.B = r.B[n:]
	return v
}

// Uvarint reads a binary.AppendUvarint.
func (r *FactReader) Uvarint() uint64 { v, n := binary.Uvarint(r.B); return took(r, v, n) }

// Varint reads a binary.AppendVarint.
func (r *FactReader) Varint() int64 { v, n := binary.Varint(r.B); return took(r, v, n) }

// Uint32 reads a binary.LittleEndian.AppendUint32.
func (r *FactReader) Uint32() uint32 {
	if len(r.B) < 4 {
		return took(r, uint32(0), 0)
	}
	return took(r, binary.LittleEndian.Uint32(r.B), 4)
}

// Byte reads one byte.
func (r *FactReader) Byte() byte {
	if len(r.B) < 1 {
		return took(r, byte(0), 0)
	}
	return took(r, r.B[0], 1)
}

// Bytes reads what AppendString wrote: a part of B, not a copy.
func (r *FactReader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		return took[[]byte](r, nil, 0)
	}
	s := r.B[:n:n]
	r.B = r.B[n:]
	return s
}

// String reads what AppendString wrote, copied.
func (r *FactReader) String() string { return string(r.Bytes()) }
