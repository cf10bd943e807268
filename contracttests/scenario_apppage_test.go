package contracttests

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// 12. The iOS app's transcript page: workspace/session/messages decodes as
// the app decodes it (id an integer), each message's id is its position
// in the transcript, and that position is the same in every page, in both
// orders, from another connection, and once the session has stopped (read
// from the CLI's own transcript alone).
func scenarioAppPage(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id, _ := newTurn(t, ctx, c, w, r.rt.id, "first for the app")
	nextTurn(t, ctx, c, id, r.rt.id, "second for the app")

	whole := r.appPositions(t, ctx, c, w, id)
	if len(whole) < 4 {
		t.Fatalf("the two turns left %d messages, want at least 4", len(whole))
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
	other, _ := r.client(t, ctx)
	if again := r.appPositions(t, ctx, other, w, id); !maps.Equal(again, whole) {
		t.Errorf("after the stop, from another connection, positions %v, before %v", again, whole)
	}
}

// appPositions reads a session's transcript in pages of every size up to
// 3, in both orders, as the app decodes them, and returns each message's
// position by uuid, failing t where pages disagree or a position is not
// the message's index in the whole transcript.
func (r *scenarioRig) appPositions(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) map[string]int {
	t.Helper()
	page := func(p rpc.MessagesParams) appMessagesPage {
		p.WorkspaceID, p.SessionID, p.AgentType = w.ID, id, r.rt.id
		raw, err := c.Call(ctx, rpc.MethodMessages, p)
		if err != nil {
			t.Fatalf("messages %+v: %v", p, err)
		}
		var pg appMessagesPage
		appDecode(t, fmt.Sprintf("messages %+v", p), raw, &pg)
		return pg
	}
	all := page(rpc.MessagesParams{Limit: 500})
	pos := make(map[string]int, len(all.Messages))
	for i, m := range all.Messages {
		if *m.ID != i {
			t.Errorf("message %d (%s) has id %d", i, *m.UUID, *m.ID)
		}
		if _, dup := pos[*m.UUID]; dup || *m.UUID == "" {
			t.Errorf("uuid %q empty or listed twice", *m.UUID)
		}
		pos[*m.UUID] = *m.ID
	}
	for size := 1; size <= 3; size++ {
		for _, order := range []rpc.Order{rpc.OrderAsc, rpc.OrderDesc} {
			for off := 0; off < len(all.Messages); off += size {
				pg := page(rpc.MessagesParams{Limit: size, Offset: off, Order: order})
				for i, m := range pg.Messages {
					want := off + i
					if order == rpc.OrderDesc {
						want = len(all.Messages) - 1 - want
					}
					if *m.ID != want || pos[*m.UUID] != want {
						t.Errorf("%s page of %d from %d: message %s has id %d, at position %d in the whole (want %d)",
							order, size, off, *m.UUID, *m.ID, pos[*m.UUID], want)
					}
				}
			}
		}
	}
	return pos
}
