package contracttests

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// envReconnectSeed replays a failed run of the random reconnection tests.
const envReconnectSeed = "CDEVD_RECONNECT_SEED"

// reconnectRand returns the tests' random source, logging its seed so that
// a failure can be replayed.
func reconnectRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(envReconnectSeed); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", envReconnectSeed, s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with %s=%d)", seed, envReconnectSeed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// longStream is a script of n text deltas, each naming its index so that
// a duplicate, a loss or a swap shows in the text, then the whole text as
// one message. It returns the prompt and the text.
func longStream(n int) (prompt, text string) {
	steps := make([]map[string]any, 0, n+1)
	var b strings.Builder
	for i := range n {
		d := strconv.Itoa(i) + " "
		b.WriteString(d)
		steps = append(steps, map[string]any{"delta": d})
	}
	steps = append(steps, map[string]any{"message": b.String()})
	return script(steps...), b.String()
}

// drop is how a client leaves.
type drop int

const (
	dropClose       drop = iota // a close frame, then the socket
	dropSilent                  // the socket closed without a close frame (FIN)
	dropReset                   // the socket reset (RST): SO_LINGER 0
	dropMidRead                 // half of an incoming frame read, then FIN
	dropMidWrite                // half of an outgoing frame written, then FIN
	dropBeforeReply             // the watch sent, the socket closed before its reply
	dropKinds
)

func (d drop) String() string {
	return [...]string{"close frame", "silent", "reset", "mid-read", "mid-write", "before reply"}[d]
}

// follower is a client that follows one session's events across
// reconnections, as an app on a flaky network does: it keeps the last seq
// it saw and asks for what follows it each time it comes back.
type follower struct {
	t     *testing.T
	e     *env
	ws    rpc.Workspace
	id    string
	epoch string

	last   int64           // the last seq seen
	events []Notification  // every session event seen, in order of arrival
	drops  [dropKinds]int  // how often each way of leaving was used
	cutOff int             // disconnections by the server (1013: too slow)
	done   bool            // the turn's terminal event was seen
	watch  rpc.WatchResult // the last watch's result
	// watching, when set, runs once after the first watch was sent.
	watching func()
	checked  map[string]int // frames checked against the contract, per method ("" for replies)
}

// connect dials, initializes, and watches from f.last. A false result
// means the client left before the watch was answered.
func (f *follower) connect(ctx context.Context, leave drop) (*RawConn, bool) {
	t := f.t
	t.Helper()
	r := DialRaw(t, ctx, f.e.url, f.e.token)
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	var init rpc.InitializeResult
	if rep := nextReply(t, ctx, r); rep.Error != nil || json.Unmarshal(rep.Result, &init) != nil || init.Epoch != f.epoch {
		t.Fatalf("initialize after %d events: %+v (epoch %q, want %q)", len(f.events), rep, init.Epoch, f.epoch)
	}
	since := f.last
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "watch", "method": rpc.MethodWatch,
		"params": rpc.WatchParams{WorkspaceID: f.ws.ID, SessionID: f.id, AgentType: scripted.ID, SinceSeq: &since, Epoch: f.epoch}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Send(frame); err != nil {
		t.Fatal(err)
	}
	if leave == dropBeforeReply {
		f.leave(r, dropSilent)
		f.drops[dropBeforeReply]++
		return nil, false
	}
	for {
		fr, ok := f.read(ctx, r)
		if !ok {
			return nil, false // cut off while catching up; the caller comes back
		}
		if fr.Method == "" {
			if fr.Error != nil || json.Unmarshal(fr.Result, &f.watch) != nil {
				t.Fatalf("watch since_seq=%d: %+v %s", since, fr.Error, fr.Result)
			}
			if f.watch.Epoch != f.epoch || f.watch.LastSeq < since {
				t.Fatalf("watch since_seq=%d = %+v, epoch %q", since, f.watch, f.epoch)
			}
			return r, true
		}
		f.see(fr)
	}
}

// frame is one message from the server, decoded once.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpc.Error      `json:"error"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// checkedPerType is how many frames of each kind the follower checks
// against the contract: the stream repeats a handful of shapes ten
// thousand times, and checking each copy would make this test slow without
// making it stricter.
const checkedPerType = 100

// read returns the next frame; false when the server cut the client off
// (see cutOffBy).
func (f *follower) read(ctx context.Context, r *RawConn) (frame, bool) {
	f.t.Helper()
	defer r.bad.report()
	data, err := r.read(ctx)
	if err != nil {
		f.cutOffBy(r, err)
		return frame{}, false
	}
	var fr frame
	if err := json.Unmarshal(data, &fr); err != nil {
		f.t.Fatalf("after seq %d: a frame that is not one JSON-RPC message: %.200s", f.last, data)
	}
	if f.checked == nil {
		f.checked = map[string]int{}
	}
	if f.checked[fr.Method] < checkedPerType {
		f.checked[fr.Method]++
		r.frames.onReceived(data)
	}
	return fr, true
}

// cutOffBy accepts the server closing the connection only for the reason a
// client may expect: one too slow for a live stream is cut off with 1013
// and comes back. Anything else fails the test.
func (f *follower) cutOffBy(r *RawConn, err error) {
	f.t.Helper()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseTryAgainLater {
		f.t.Fatalf("reading after seq %d: %v", f.last, err)
	}
	f.cutOff++
	r.Close()
}

// see takes in one frame. Session events must follow the last one seen
// exactly: no duplicate, no gap, no other epoch.
func (f *follower) see(fr frame) {
	t := f.t
	t.Helper()
	if fr.Method == "" {
		t.Fatalf("after seq %d: a reply nothing asked for: %s %+v", f.last, fr.ID, fr.Error)
	}
	note := Notification{Method: fr.Method, Params: fr.Params}
	h := note.Header()
	if h.SessionID != f.id {
		return // heartbeats
	}
	if h.Seq != f.last+1 || h.Epoch != f.epoch {
		t.Fatalf("after seq %d (%d events, %d reconnections) got %s seq %d epoch %q, want seq %d epoch %q",
			f.last, len(f.events), f.reconnections(), note.Type(), h.Seq, h.Epoch, f.last+1, f.epoch)
	}
	f.last = h.Seq
	f.events = append(f.events, note)
	if isTerminal(note) {
		f.done = true
	}
}

func (f *follower) reconnections() int {
	k := f.cutOff
	for _, d := range f.drops {
		k += d
	}
	return k
}

// follow reads n session events (fewer if the turn ends first), then
// leaves as told.
func (f *follower) follow(ctx context.Context, r *RawConn, n int, how drop) {
	f.t.Helper()
	for seen := 0; seen < n && !f.done; {
		fr, ok := f.read(ctx, r)
		if !ok {
			return
		}
		before := f.last
		f.see(fr)
		if f.last != before {
			seen++
		}
	}
	if how == dropMidRead && !f.done {
		// Leave with the next frame half read: it is not seen.
		_ = r.ws.SetReadDeadline(time.Time{})
		_, fr, err := r.ws.NextReader()
		if err == nil {
			_, err = io.ReadFull(fr, make([]byte, 16))
		}
		if err != nil {
			f.cutOffBy(r, err)
			return
		}
	}
	f.leave(r, how)
	f.drops[how]++
}

// leave closes the connection the way how says.
func (f *follower) leave(r *RawConn, how drop) {
	t := f.t
	t.Helper()
	nc := r.ws.UnderlyingConn()
	switch how {
	case dropClose:
		r.Close()
		return
	case dropReset:
		if err := nc.(*net.TCPConn).SetLinger(0); err != nil {
			t.Fatal(err)
		}
	case dropMidWrite:
		// A masked text frame announcing 200 bytes, cut after 10.
		hdr := []byte{0x81, 0x80 | 126, 0, 0, 1, 2, 3, 4}
		binary.BigEndian.PutUint16(hdr[2:], 200)
		if _, err := nc.Write(append(hdr, []byte(`{"jsonrpc"`)...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Close(); err != nil {
		t.Fatal(err)
	}
}

// run follows the session until its turn ends, leaving after a random
// number of events (up to maxRead) each time, in a random way.
func (f *follower) run(ctx context.Context, rng *rand.Rand, maxRead int) {
	for !f.done {
		how := drop(rng.IntN(int(dropKinds)))
		r, ok := f.connect(ctx, how)
		if f.watching != nil {
			f.watching()
			f.watching = nil
		}
		if !ok {
			continue
		}
		if f.watch.Gap {
			f.t.Fatalf("watch since_seq=%d = %+v: a gap though the buffer keeps every event", f.last, f.watch)
		}
		f.follow(ctx, r, rng.IntN(maxRead+1), how)
	}
}

func TestReconnectRandomlyThroughLongStream(t *testing.T) {
	const deltas = 10_000
	e := startEnv(t)
	// A few seconds under -race on an idle machine; the bound is wider than
	// other tests' for a machine busy with other work.
	ctx, cancel := context.WithTimeout(t.Context(), 2*wait)
	defer cancel()
	rng := reconnectRand(t)
	ctl, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, ctl)
	id := startSession(t, ctx, ctl, w)
	// Only the follower reads the stream: the starter stops watching, and
	// the client that sends the prompt (and so watches) leaves at once.
	ctl.MustCall(ctx, rpc.MethodUnwatch, rpc.UnwatchParams{SessionID: id, AgentType: scripted.ID}, nil)
	prompt, want := longStream(deltas)
	f := &follower{t: t, e: e, ws: w, id: id, epoch: init.Epoch}
	f.watching = func() {
		sender := e.connect(ctx)
		send(t, ctx, sender, id, prompt)
		sender.Close()
	}
	f.run(ctx, rng, 600)

	if st := state(t, ctx, ctl, id); f.last != st.LastSeq || st.Epoch != init.Epoch {
		t.Errorf("the follower ended at seq %d, session/state = %+v", f.last, st)
	}
	// see checked each event against the one before it; seqs from 1 on.
	if len(f.events) == 0 || f.events[0].Seq() != 1 || int64(len(f.events)) != f.last {
		t.Fatalf("%d events seen, up to seq %d", len(f.events), f.last)
	}
	if f.events[len(f.events)-1].Type() != rpc.EventTurnCompleted {
		t.Errorf("the last event is %s, want turn_completed", f.events[len(f.events)-1].Type())
	}
	if got := deltaText(f.events); got != want {
		t.Errorf("the deltas seen across reconnections make %d bytes, want the %d scripted (first difference at %d)",
			len(got), len(want), firstDiff(got, want))
	}
	var last rpc.MessageEvent
	for _, n := range f.events {
		if n.Type() == rpc.EventMessage {
			_ = n.Decode(&last)
		}
	}
	if text(last.Message) != want {
		t.Errorf("the final message holds %d bytes, want the %d scripted", len(text(last.Message)), len(want))
	}
	t.Logf("%d events over %d reconnections (%v; cut off as too slow: %d)", len(f.events), f.reconnections(),
		dropCounts(f.drops), f.cutOff)
}

// A client that comes back after the replay buffer moved past it is told
// gap, reloads the turn with messages, and is live again from last_seq.
func TestReconnectAfterBufferMovedOn(t *testing.T) {
	const deltas, kept = 500, 50
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) {
		dc.Sessions.ReplayEvents, dc.Sessions.ReplayMax = kept, kept
	})
	ctx := testCtx(t)
	rng := reconnectRand(t)
	ctl, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, ctl)
	id := startSession(t, ctx, ctl, w)

	// The follower reads part of the stream and vanishes; it comes back
	// after the turn, when the buffer holds only the turn's last events.
	f := &follower{t: t, e: e, ws: w, id: id, epoch: init.Epoch}
	r, ok := f.connect(ctx, dropClose)
	if !ok || f.watch.Gap {
		t.Fatalf("first watch: %+v", f.watch)
	}
	prompt, want := longStream(deltas)
	send(t, ctx, ctl, id, prompt)
	how := []drop{dropClose, dropSilent, dropReset, dropMidRead, dropMidWrite}[rng.IntN(5)]
	f.follow(ctx, r, 1+rng.IntN(deltas/2), how)
	left := f.last
	if f.done {
		t.Fatal("the follower saw the whole turn")
	}
	await(t, ctx, ctl, rpc.EventTurnCompleted, id)
	end := state(t, ctx, ctl, id).LastSeq
	if end-f.last <= kept {
		t.Fatalf("the follower left at seq %d of %d: still within the %d events kept", f.last, end, kept)
	}

	r, ok = f.connect(ctx, dropClose)
	if !ok {
		t.Fatal("cut off while coming back")
	}
	if !f.watch.Gap || f.watch.Replayed != 0 || f.watch.LastSeq != end {
		t.Fatalf("watch since_seq=%d after the buffer moved past it (%s) = %+v, want gap and last_seq %d",
			f.last, how, f.watch, end)
	}
	// What it missed is in the transcript.
	var msgs rpc.MessagesResult
	callRaw(t, ctx, r, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID,
		Order: rpc.OrderDesc, Limit: 1}, &msgs)
	if len(msgs.Messages) != 1 || msgs.Messages[0].Type != rpc.MessageAssistant || text(msgs.Messages[0].Message) != want {
		t.Fatalf("messages after the gap: %d messages, want the turn's answer (%d bytes)", len(msgs.Messages), len(want))
	}

	// Live from last_seq on, with nothing lost or repeated.
	f.last = end
	send(t, ctx, ctl, id, "after the gap")
	for !f.done {
		fr, ok := f.read(ctx, r)
		if !ok {
			t.Fatal("cut off after the gap")
		}
		f.see(fr)
	}
	if got := deltaText(between(f.events, end+1, f.last+1)); got != "echo: after the gap" {
		t.Errorf("the turn after the gap streamed %q", got)
	}
	r.Close()
	t.Logf("left at seq %d of %d (%s), %d kept", left, end, how, kept)
}

// callRaw calls method on r and decodes its result, taking in the
// notifications that come first.
func callRaw(t *testing.T, ctx context.Context, r *RawConn, method string, params, out any) {
	t.Helper()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": method, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Send(frame); err != nil {
		t.Fatal(err)
	}
	rep := nextReply(t, ctx, r)
	if rep.Error != nil || string(rep.ID) != strconv.Quote(method) {
		t.Fatalf("%s: %+v", method, rep)
	}
	if err := json.Unmarshal(rep.Result, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func dropCounts(d [dropKinds]int) string {
	parts := make([]string, len(d))
	for i, k := range d {
		parts[i] = fmt.Sprintf("%s %d", drop(i), k)
	}
	return strings.Join(parts, ", ")
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
