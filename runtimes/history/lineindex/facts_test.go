package lineindex

import (
	"encoding/binary"
	"testing"
)

// TestFactReader: what was appended reads back in order, and every cut of
// it short of its end is told (Bad), never read as something else.
func TestFactReader(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = binary.AppendVarint(b, -7)
	b = binary.LittleEndian.AppendUint32(b, 0xdeadbeef)
	b = append(b, 9)
	b = AppendString(b, "héllo")
	b = AppendString(b, "")
	read := func(b []byte) (FactReader, [6]any) {
		r := FactReader{B: b}
		return r, [6]any{r.Uvarint(), r.Varint(), r.Uint32(), r.Byte(), r.String(), string(r.Bytes())}
	}
	r, got := read(b)
	if want := [6]any{uint64(300), int64(-7), uint32(0xdeadbeef), byte(9), "héllo", ""}; r.Bad || len(r.B) != 0 || got != want {
		t.Fatalf("read %v (bad %v, %d left), want %v", got, r.Bad, len(r.B), want)
	}
	for cut := range len(b) {
		if r, got := read(b[:cut]); !r.Bad {
			t.Fatalf("cut at %d of %d read %v without failing", cut, len(b), got)
		}
	}
}
