package chats

import (
	"fmt"
	"os"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// TestReplayWithHashCollisions: with ids that share their hashes (here,
// every id of a length), a replay still finds each record by its id: one
// written again takes its first version's place, and ids that only share
// a hash are apart, kept by their strings. Not parallel: it sets idHash.
func TestReplayWithHashCollisions(t *testing.T) {
	defer func(h func([]byte) uint64) { idHash = h }(idHash)
	idHash = func(id []byte) uint64 { return uint64(len(id)) }
	g := geminigen.New("0b000000-0000-4000-8000-000000000001", "/ws")
	var b []byte
	for _, l := range g.Header() {
		b = append(b, l+"\n"...)
	}
	for i := 0; g.Messages() < 300; i++ {
		for _, l := range g.Turn() {
			b = append(b, l+"\n"...)
		}
		if i%7 == 0 { // an early record written again
			b = append(b, fmt.Sprintf(`{"id":"u-%d","type":"user","content":"again %d"}`+"\n", i/3, i)...)
		}
	}
	checkReplay(t, b, len(b)/3)
	x, _ := indexView(t, writeTemp(t, b), nil)
	if x.pos == nil || len(x.pos.more) == 0 {
		t.Fatal("no id was kept by its string: the hashes did not collide")
	}
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := t.TempDir() + "/c.jsonl"
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
