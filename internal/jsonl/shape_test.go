package jsonl

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// member is one member a walk met: its key and where its value starts.
type member struct {
	key string
	at  int
}

// names gives each key an id, the same whenever it is asked, as a Shape
// requires.
type names []string

func (n *names) id(key []byte) int {
	if i := slices.Index(*n, string(key)); i >= 0 {
		return i
	}
	*n = append(*n, string(key))
	return len(*n) - 1
}

// shapeWalk walks b with s, naming keys by their ids in n.
func shapeWalk(s *Shape, n *names, b []byte) ([]member, int) {
	var ms []member
	end := walk(b, skipSpace(b, 0), s, n.id, func(_ []byte, k, at int) int {
		ms = append(ms, member{(*n)[k], at})
		return ValueEnd(b, at)
	})
	return ms, end
}

// objectWalk is shapeWalk without a Shape or ids: each key as written.
func objectWalk(b []byte) ([]member, int) {
	var ms []member
	end := object(b, skipSpace(b, 0), func(key []byte, at int) int {
		ms = append(ms, member{string(key), at})
		return ValueEnd(b, at)
	})
	return ms, end
}

// shapeSeeds are objects a Shape is primed with: keys that begin alike,
// escapes, spaces, more kinds at a place than it remembers, more keys
// than it remembers places for.
func shapeSeeds() []string {
	seeds := []string{
		`{"type":"user","message":{"a":1},"uuid":"u"}`,
		`{"typeX":"user","message":{"a":1}}`,
		`{"type" : "user" , "mess\"age":[1,"]"]}`,
		`{"ty\u0070e":1,"a\\":2}`,
		`{}`,
		`{"a":1}`, `{"b":1}`, `{"c":1}`, `{"d":1}`, `{"e":1}`,
	}
	var many []string
	for i := range shapeMaxAt + 8 {
		many = append(many, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	return append(seeds, "{"+strings.Join(many, ",")+"}")
}

// checkShape fails when a Shape primed with the seeds, and with b itself,
// walks b other than Object does: any key it knows by its place must be
// the key there.
func checkShape(t *testing.T, b []byte) {
	t.Helper()
	want, wantEnd := objectWalk(b)
	s, n := new(Shape), new(names)
	for _, seed := range shapeSeeds() {
		shapeWalk(s, n, []byte(seed))
	}
	for range 2 { // the second time, with b's own keys remembered
		got, end := shapeWalk(s, n, b)
		if end != wantEnd || (end >= 0 && !slices.Equal(got, want)) {
			t.Fatalf("%q: Shape walk %v, end %d; Object %v, end %d", b, got, end, want, wantEnd)
		}
	}
	if got, end := shapeWalk(nil, n, b); end != wantEnd || (end >= 0 && !slices.Equal(got, want)) {
		t.Fatalf("%q: nil Shape walk %v, end %d; Object %v, end %d", b, got, end, want, wantEnd)
	}
}

func TestShape(t *testing.T) {
	for _, seed := range shapeSeeds() {
		checkShape(t, []byte(seed))
	}
	for _, b := range []string{
		`{"type":"user","message":{"a":1},"uuid":"u"}`,
		`{"type":"summary","message":null,"uuid":"v","x":[]}`,
		`{"typeX":"user"}`,
		`{"type\"":"user"}`,
		`{"type`, `{"type"`, `{"type":`, `{"type":1,`, `{"type":1,"message"`,
		` { "message" :{}, "type":"a"} `,
		`{"e":1,"d":2,"c":3,"b":4,"a":5}`,
		`{"k0":0,"k1":1,"k2":"x","k39":39}`,
		`[1]`, `{`, ``,
	} {
		checkShape(t, []byte(b))
	}
	// Each key at its place is remembered once: an object read again
	// costs no memory.
	s, n := new(Shape), new(names)
	b := []byte(`{"type":"user","message":{},"uuid":"u"}`)
	shapeWalk(s, n, b)
	walk := testing.AllocsPerRun(100, func() { objectWalk(b) })
	if got := testing.AllocsPerRun(100, func() { shapeWalk(s, n, b) }); got > walk {
		t.Errorf("a known shape read again allocates %.0f times, Object's walk %.0f", got, walk)
	}
}

func FuzzShape(f *testing.F) {
	for _, seed := range shapeSeeds() {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkShape)
}
