package rollout

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
)

// TestMessagesPageBytes: a page stops at runtimes.PageBytes of lines, the
// client goes on from where it stopped, and a message over the bound alone
// keeps its envelope only.
func TestMessagesPageBytes(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	p := install(t, home, "exec.jsonl", "2026/11/22", threadA, ws)
	s := newStore(t, home)
	ctx := context.Background()
	small, _, err := s.Messages(ctx, ws, threadA, 0, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range small {
		want = append(want, m.UUID)
	}
	var b strings.Builder
	for i, n := range []int{10, 3 << 19, 3 << 19, 3 << 19, 5 << 20, 10, 1 << 20} {
		id := fmt.Sprintf("msg_big_%d", i)
		fmt.Fprintf(&b, `{"timestamp":"2026-11-23T00:51:00.000Z","type":"event_msg","payload":{"type":"item_completed","thread_id":%q,"item":{"type":"AgentMessage","id":%q,"content":[{"type":"Text","text":%q}]}}}`+"\n",
			threadA, id, strings.Repeat("x", n))
		want = append(want, id)
	}
	appendFile(t, p, b.String())
	adaptertest.BoundedPages(t, func(off, limit int, desc bool) ([]rpc.Message, int, error) {
		return s.Messages(ctx, ws, threadA, off, limit, desc)
	}, want, len(small)+4)
}
