package chats

import (
	"os"
	"testing"
)

// TestReplayWithHashCollisions: with ids that share their hashes (here,
// every id of a length), a replay still finds each record by its id: one
// written again takes its first version's place, and ids that only share
// a hash are apart, kept by their strings. Not parallel: it sets idHash.
func TestReplayWithHashCollisions(t *testing.T) {
	defer func(h func([]byte) uint64) { idHash = h }(idHash)
	idHash = func(id []byte) uint64 { return uint64(len(id)) }
	b := rewrittenChat(300, 7)
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
