package transcript

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
)

// pageSizes are the text sizes of the messages of the page-bound tests:
// three that fill a page together, one over runtimes.PageBytes alone
// (pageBig), small ones around them.
var pageSizes = []int{10, 3 << 19, 3 << 19, 3 << 19, 5 << 20, 10, 1 << 20}

const pageBig = 4

// TestMessagesPageBytes: a page stops at runtimes.PageBytes of lines (ten
// lines of 30 MB made one reply of 314 MB), the client goes on from where
// it stopped, and a message over the bound alone keeps its envelope only.
func TestMessagesPageBytes(t *testing.T) {
	s, d := newStore(t)
	var b strings.Builder
	var want []string
	for i, n := range pageSizes {
		fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":%q,"uuid":%q,"timestamp":"2026-01-02T10:00:00.000Z","type":"user","message":{"role":"user","content":%q}}`+"\n",
			idA, msgUUID(i), strings.Repeat("x", n))
		want = append(want, msgUUID(i))
	}
	writeSession(t, d, idA, b.String(), time.Now())
	adaptertest.BoundedPages(t, func(off, limit int, desc bool) ([]rpc.Message, int, error) {
		return s.Messages(context.Background(), workDir, idA, off, limit, desc)
	}, want, pageBig)
}
