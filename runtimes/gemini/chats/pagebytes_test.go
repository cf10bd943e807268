package chats

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
)

// TestMessagesPageBytes: a page stops at runtimes.PageBytes of records, the
// client goes on from where it stopped, and a message over the bound alone
// keeps its envelope only.
func TestMessagesPageBytes(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
	id := sid('a', 0)
	p := writeChat(t, filepath.Join(home, "tmp", filepath.Base(ws), "chats"), id, ws, 1, time.Now())
	want := []string{"u0", "a0"}
	var b strings.Builder
	for i, n := range []int{10, 3 << 19, 3 << 19, 3 << 19, 5 << 20, 10, 1 << 20} {
		fmt.Fprintf(&b, `{"id":"big%d","timestamp":"2026-11-23T00:00:03.000Z","type":"gemini","content":%q}`+"\n", i, strings.Repeat("x", n))
		want = append(want, fmt.Sprintf("big%d", i))
	}
	appendFile(t, p, b.String())
	s := New(home, nil)
	defer s.Close()
	adaptertest.BoundedPages(t, func(off, limit int, desc bool) ([]rpc.Message, int, error) {
		return s.Messages(context.Background(), ws, id, off, limit, desc)
	}, want, 2+4)
}
