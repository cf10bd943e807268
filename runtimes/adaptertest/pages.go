package adaptertest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Pager fetches one page of a stored session, as Transcripts.Messages.
type Pager func(offset, limit int, desc bool) ([]rpc.Message, int, error)

// BoundedPages checks the byte bound of a store's pages (runtimes.PageBytes)
// on a session whose messages, oldest first, have the uuids want, and whose
// message big alone is stored in more than PageBytes: paging through it
// both ways, a client that goes on from offset+len(messages) gets every
// message once, in order; every page encodes to at most PageBytes; and
// message big keeps its uuid but not its content (runtimes.Omitted).
func BoundedPages(t *testing.T, fetch Pager, want []string, big int) {
	t.Helper()
	for _, desc := range []bool{false, true} {
		var got []string
		pages := 0
		for off := 0; ; {
			page, total, err := fetch(off, 50, desc)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Fatalf("total %d, want %d", total, len(want))
			}
			if off < total && len(page) == 0 {
				t.Fatalf("desc %v: empty page at offset %d of %d", desc, off, total)
			}
			b, err := json.Marshal(page)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > runtimes.PageBytes {
				t.Errorf("desc %v: page at offset %d of %d messages encodes to %d bytes, over %d", desc, off, len(page), len(b), runtimes.PageBytes)
			}
			for _, m := range page {
				got = append(got, m.UUID)
				omitted := len(m.Message.Content) == 1 && strings.HasPrefix(m.Message.Content[0].Text, "[cdevd: this message is ")
				if isBig := m.UUID == want[big]; omitted != isBig {
					t.Errorf("message %s: content left out %v, want %v", m.UUID, omitted, isBig)
				}
			}
			pages++
			off += len(page)
			if off >= total {
				break
			}
		}
		w := slices.Clone(want)
		if desc {
			slices.Reverse(w)
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("desc %v: paged through %v, want %v", desc, got, w)
		}
		if pages < 2 {
			t.Errorf("desc %v: one page of %d messages for more than %d bytes", desc, len(got), runtimes.PageBytes)
		}
	}
}
