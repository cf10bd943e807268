package contracttests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// deltaText concatenates the message_delta texts of ns.
func deltaText(ns []Notification) string {
	var b strings.Builder
	for _, n := range ns {
		if n.Type() == rpc.EventMessageDelta {
			var d rpc.MessageDeltaEvent
			_ = n.Decode(&d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func TestReconnectSinceSeq(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	a, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)

	// A slow stream, so that the client leaves in the middle of it.
	var steps []map[string]any
	var want strings.Builder
	for i := range 20 {
		d := fmt.Sprintf("d%02d ", i)
		want.WriteString(d)
		steps = append(steps, map[string]any{"delta": d}, map[string]any{"sleep_ms": 10})
	}
	send(t, ctx, a, id, script(steps...))
	if err := a.Until(ctx, func(ns []Notification) bool {
		return count(ns, Event(rpc.EventMessageDelta, id)) >= 3
	}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	<-a.Done()
	seen := a.SessionEvents(id)
	checkSeqs(t, seen, 1, init.Epoch)
	last := seen[len(seen)-1].Seq()

	b := e.connect(ctx)
	var res rpc.WatchResult
	b.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID, SinceSeq: &last}, &res)
	if res.Gap || res.Epoch != init.Epoch || res.Replayed != int(res.LastSeq-last) {
		t.Errorf("watch since_seq=%d = %+v, want every event after it replayed, no gap", last, res)
	}
	await(t, ctx, b, rpc.EventTurnCompleted, id)
	st := state(t, ctx, b, id)
	awaitSeq(t, ctx, b, id, st.LastSeq)
	got := b.SessionEvents(id)
	checkSeqs(t, got, last+1, init.Epoch)
	if int64(len(got)) != st.LastSeq-last {
		t.Errorf("after reconnecting: %d events, want %d", len(got), st.LastSeq-last)
	}
	if text := deltaText(seen) + deltaText(got); text != want.String() {
		t.Errorf("the stream seen across the reconnection is %q, want %q", text, want.String())
	}

	// And it continues live, with no duplicate.
	send(t, ctx, b, id, "more")
	await(t, ctx, b, rpc.EventTurnCompleted, id)
	st = state(t, ctx, b, id)
	awaitSeq(t, ctx, b, id, st.LastSeq)
	checkSeqs(t, b.SessionEvents(id), last+1, init.Epoch)
}

func TestReplayGap(t *testing.T) {
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) {
		dc.Sessions.ReplayEvents, dc.Sessions.ReplayMax = 4, 4
	})
	ctx := testCtx(t)
	a, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)
	var steps []map[string]any
	for range 10 {
		steps = append(steps, map[string]any{"delta": "x"})
	}
	send(t, ctx, a, id, script(steps...))
	await(t, ctx, a, rpc.EventTurnCompleted, id)
	last := state(t, ctx, a, id).LastSeq

	watch := func(c *Client, since int64) rpc.WatchResult {
		var res rpc.WatchResult
		c.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID, SinceSeq: &since}, &res)
		return res
	}
	// Older than the buffer: gap, nothing replayed.
	b := e.connect(ctx)
	if res := watch(b, 1); !res.Gap || res.Replayed != 0 || res.LastSeq != last {
		t.Errorf("watch since_seq=1 with a 4-event buffer = %+v, want gap", res)
	}
	// From another epoch (beyond the last seq): gap too.
	if res := watch(e.connect(ctx), last+100); !res.Gap {
		t.Errorf("watch since_seq beyond last_seq = %+v, want gap", res)
	}
	// Within the buffer: replayed exactly.
	c := e.connect(ctx)
	if res := watch(c, last-2); res.Gap || res.Replayed != 2 {
		t.Errorf("watch since_seq=last-2 = %+v, want 2 replayed", res)
	}
	awaitSeq(t, ctx, c, id, last)
	checkSeqs(t, c.SessionEvents(id), last-1, init.Epoch)

	// After a gap the watcher is live from last_seq on.
	send(t, ctx, a, id, "after")
	await(t, ctx, b, rpc.EventTurnCompleted, id)
	checkSeqs(t, b.SessionEvents(id), last+1, init.Epoch)
}

// A client that stops reading is cut off with 1013 once its queue is full;
// the session and a client that keeps up lose nothing.
func TestSlowClientCutOff(t *testing.T) {
	const queue = 8
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) {
		dc.Transport.SendQueue = queue
		// The slow client's socket stays full until it reads again: only
		// the queue may decide its fate, not a write timeout.
		dc.Transport.WriteTimeout = wait
	})
	ctx := testCtx(t)
	fast, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, fast)
	id := startSession(t, ctx, fast, w)

	slow := DialRaw(t, ctx, e.url, e.token, WithReceiveBuffer(4096))
	initRaw(t, ctx, slow)
	watch, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "w", "method": rpc.MethodWatch,
		"params": rpc.WatchParams{WorkspaceID: w.ID, SessionID: id}})
	if err != nil {
		t.Fatal(err)
	}
	if err := slow.Send(watch); err != nil {
		t.Fatal(err)
	}
	if rep := nextReply(t, ctx, slow); rep.Error != nil {
		t.Fatalf("slow client's watch: %+v", rep.Error)
	}
	// From here on the slow client reads nothing. The first message is
	// bigger than the kernel buffers between the two ends hold, so the
	// server's writes to the slow client block; the events after it then
	// fill its queue. They come after a question that the fast client
	// answers once it has taken the big message in, and are paced, so the
	// fast client keeps up.
	steps := []map[string]any{{"big_message": 6 << 20},
		{"question": map[string]any{"text": "ready?", "options": []string{"yes"}}}}
	for range 3 * queue {
		steps = append(steps, map[string]any{"delta": "d"}, map[string]any{"sleep_ms": 20})
	}
	prompt := script(steps...)
	send(t, ctx, fast, id, prompt)
	var q rpc.QuestionEvent
	if err := await(t, ctx, fast, rpc.EventQuestion, id).Decode(&q); err != nil {
		t.Fatal(err)
	}
	fast.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondQuestion,
		Response: "yes", RequestID: q.RequestID, AgentType: scripted.ID}, nil)
	await(t, ctx, fast, rpc.EventTurnCompleted, id)
	st := state(t, ctx, fast, id)
	awaitSeq(t, ctx, fast, id, st.LastSeq)
	all := fast.SessionEvents(id)
	checkSeqs(t, all, 1, init.Epoch)
	if int64(len(all)) != st.LastSeq {
		t.Fatalf("the fast client got %d events, want %d", len(all), st.LastSeq)
	}

	notes, code, err := slow.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != websocket.CloseTryAgainLater {
		t.Fatalf("slow client closed with %d, want %d (try again later)", code, websocket.CloseTryAgainLater)
	}
	var got []Notification
	for _, n := range notes {
		if n.Header().SessionID == id {
			got = append(got, n)
		}
	}
	if len(got) == 0 {
		t.Fatal("the slow client got no event before it was cut off")
	}
	seen := got[len(got)-1].Seq()
	checkSeqs(t, got, got[0].Seq(), init.Epoch)
	if seen >= st.LastSeq {
		t.Fatalf("the slow client got every event (up to %d): it was not cut off for being slow", seen)
	}
}

// A client that missed more events than its send queue holds (as a slow
// client cut off with 1013 always has) reconnects with since_seq and gets
// all of them.
func TestReplayLongerThanSendQueue(t *testing.T) {
	const queue = 16
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) { dc.Transport.SendQueue = queue })
	ctx := testCtx(t)
	a, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)
	var steps []map[string]any
	for range 4 * queue {
		// Paced, so that a client reading as fast as it can mostly keeps up.
		steps = append(steps, map[string]any{"delta": "d"}, map[string]any{"sleep_ms": 2})
	}
	// Even so, on a loaded machine a client can fall 16 events behind and
	// be cut off with 1013 (a is, now and then): the end of the turn is
	// awaited through the public client, which then reconnects with
	// since_seq as clients should. (What it receives, b receives too and
	// checks.)
	waiter, err := client.Dial(ctx, client.Config{URL: e.url, Token: e.token, Reconnect: true})
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	zero := int64(0)
	if _, err := waiter.Watch(ctx, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, SinceSeq: &zero}); err != nil {
		t.Fatal(err)
	}
	send(t, ctx, a, id, script(steps...))
	awaitTurnEnd(t, ctx, waiter, id)

	b := e.connect(ctx)
	last := state(t, ctx, b, id).LastSeq
	since := int64(1)
	raw, rerr := b.Call(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, SinceSeq: &since})
	if rerr != nil {
		t.Fatalf("watch since_seq=1 with %d events to replay through a %d-message send queue: %v (close code %d)",
			last-since, queue, rerr, b.CloseCode())
	}
	var res rpc.WatchResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Gap || res.Replayed != int(last-since) {
		t.Errorf("watch since_seq=1 = %+v, want %d replayed", res, last-since)
	}
	if err := b.Until(ctx, func(ns []Notification) bool { return len(ns) >= int(last-since) }); err != nil {
		t.Fatalf("replaying %d events through a %d-message send queue: %v (close code %d)", last-since, queue, err, b.CloseCode())
	}
	checkSeqs(t, b.SessionEvents(id), since+1, init.Epoch)
}

// awaitTurnEnd reads c's events until a turn of session id has completed.
func awaitTurnEnd(t *testing.T, ctx context.Context, c *client.Client, id string) {
	t.Helper()
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed before the turn ended: %v", c.Err())
			}
			if ev.Type() == rpc.EventTurnCompleted && ev.Header.SessionID == id {
				return
			}
		case <-ctx.Done():
			t.Fatalf("the turn did not end: %v", ctx.Err())
		}
	}
}
