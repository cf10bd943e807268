package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/internal/bench/claudegen"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
)

// scriptedID is the agent_type of the scripted runtime that
// `serve --bench-runtime` registers: its CLI (this binary again) streams
// exactly the events a prompt scripts, so that the fan-out figures measure
// cdevd rather than a model.
const scriptedID = "scripted"

// fanout is one scripted session, its owner, and watchers of it, each on
// its own connection with a reader goroutine.
type fanout struct {
	owner    *conn
	id       string
	watchers []*conn
	turn     atomic.Pointer[turn] // the turn being recorded
	perTick  float64              // deltas per 10 ms tick that reach the steady rate
	readers  sync.WaitGroup
}

// turn records what each watcher received of one turn. recs[i] is written
// only by watcher i's reader, until it marks it done; done.Wait orders
// those writes before the measuring goroutine reads them.
type turn struct {
	recs []watchRec
	done sync.WaitGroup
}

type watchRec struct {
	lat        []time.Duration // creation → arrival of each event
	seqs       []int64
	first, end time.Time // arrivals of the first and the last event
	finished   bool      // turn_completed seen, or the connection is gone
	cut        bool      // the connection is gone
}

// event is what the bench reads of a notification.
type event struct {
	Method string `json:"method"`
	Params struct {
		Seq       int64  `json:"seq"`
		Timestamp string `json:"timestamp"`
		UUID      string `json:"uuid"`
	} `json:"params"`
}

func (b *Bench) ensureFanout(ctx context.Context) (*fanout, error) {
	if b.fix.fanout != nil {
		return b.fix.fanout, nil
	}
	f := &fanout{}
	b.fix.fanout = f // closed by closeFixtures, even when half made
	var err error
	if f.owner, err = connect(ctx, b.serve); err != nil {
		return nil, err
	}
	ws, err := workspace(f.owner, b.path("ws", "events"))
	if err != nil {
		return nil, err
	}
	var started rpc.SessionStartResult
	if _, _, err := f.owner.call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: ws.ID, AgentType: scriptedID}, &started); err != nil {
		return nil, err
	}
	f.id = started.SessionID
	// The owner reads its own copy of the events, so that it is never cut off.
	f.readers.Add(1)
	go func() {
		defer f.readers.Done()
		for {
			if _, _, err := f.owner.ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	for i := range b.sz.watchers {
		c, err := connect(ctx, b.serve)
		if err != nil {
			return nil, err
		}
		if _, _, err := c.call(rpc.MethodWatch, rpc.WatchParams{WorkspaceID: ws.ID, SessionID: f.id, AgentType: scriptedID}, nil); err != nil {
			c.close()
			return nil, err
		}
		f.watchers = append(f.watchers, c)
		f.readers.Add(1)
		go f.read(i, c)
	}
	return f, nil
}

// read records the events watcher i receives into the current turn.
func (f *fanout) read(i int, c *conn) {
	defer f.readers.Done()
	for {
		_, msg, err := c.ws.ReadMessage()
		now := time.Now()
		t := f.turn.Load()
		if err != nil {
			if t != nil && !t.recs[i].finished {
				t.recs[i].finished, t.recs[i].cut = true, true
				t.done.Done()
			}
			return
		}
		if t == nil || t.recs[i].finished {
			continue
		}
		method, seq, created, ok := header(msg)
		if !ok {
			continue
		}
		r := &t.recs[i]
		if len(r.seqs) == 0 {
			r.first = now
		}
		r.end = now
		r.lat = append(r.lat, now.Sub(created))
		r.seqs = append(r.seqs, seq)
		if method == rpc.EventTurnCompleted {
			r.finished = true
			t.done.Done()
		}
	}
}

// header reads an event notification's type, seq and creation time without
// decoding the whole frame: a hundred watchers in the bench process share
// two cores with the daemon, so what the client spends is taken from what is
// measured. The header fields come before the event's own (rpc.EventHeader
// is embedded first), so the first match is the header's.
func header(msg []byte) (method string, seq int64, created time.Time, ok bool) {
	field := func(name string) []byte {
		i := bytes.Index(msg, []byte(name))
		if i < 0 {
			return nil
		}
		rest := msg[i+len(name):]
		if j := bytes.IndexAny(rest, `",}`); j >= 0 {
			return rest[:j]
		}
		return nil
	}
	m := field(`"method":"` + rpc.EventPrefix)
	ts := field(`"timestamp":"`)
	n, err := strconv.ParseInt(string(field(`"seq":`)), 10, 64)
	if m == nil || ts == nil || err != nil {
		return "", 0, time.Time{}, false
	}
	created, err = time.Parse(time.RFC3339Nano, string(ts))
	return string(m), n, created, err == nil
}

func (f *fanout) close() {
	if f.owner != nil {
		f.owner.close()
	}
	for _, c := range f.watchers {
		c.close()
	}
	f.readers.Wait()
}

// turnResult is what the watchers received of a turn.
type turnResult struct {
	lat    []time.Duration // creation → arrival of every delivery
	lost   int             // seqs some watcher missed, or never got (cut off)
	events int             // events watcher 0 received
	span   time.Duration   // from watcher 0's first event to its last
}

// runTurn sends a scripted turn and waits until every watcher has its end.
func (f *fanout) runTurn(ctx context.Context, steps []map[string]any, limit time.Duration) (res turnResult, err error) {
	prompt, err := json.Marshal(map[string]any{"steps": steps})
	if err != nil {
		return res, err
	}
	t := &turn{recs: make([]watchRec, len(f.watchers))}
	t.done.Add(len(f.watchers))
	f.turn.Store(t)
	// A notification: its reply would only race with the events.
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": rpc.MethodSessionSend,
		"params": rpc.SessionSendParams{SessionID: f.id, Prompt: string(prompt)}})
	if err != nil {
		return res, err
	}
	if err := f.owner.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return res, err
	}
	done := make(chan struct{})
	go func() { t.done.Wait(); close(done) }()
	select {
	case <-done:
		// Between turns the readers record nothing. A turn that failed
		// stays current: its readers still finish it when their
		// connections close, which ends the goroutine waiting for them.
		f.turn.Store(nil)
	case <-time.After(limit):
		return res, fmt.Errorf("the turn did not reach every watcher within %s", limit)
	case <-ctx.Done():
		return res, ctx.Err()
	}
	// Every watcher should have the same seqs, from the lowest any saw to
	// turn_completed's.
	lo, hi := int64(-1), int64(-1)
	for _, r := range t.recs {
		if len(r.seqs) > 0 && (lo < 0 || r.seqs[0] < lo) {
			lo = r.seqs[0]
		}
		if len(r.seqs) > 0 && !r.cut {
			hi = max(hi, r.seqs[len(r.seqs)-1])
		}
		res.lat = append(res.lat, r.lat...)
	}
	for _, r := range t.recs {
		seen := map[int64]bool{}
		for _, s := range r.seqs {
			seen[s] = true
		}
		for s := lo; s <= hi; s++ {
			if !seen[s] {
				res.lost++
			}
		}
	}
	res.events, res.span = len(t.recs[0].seqs), t.recs[0].end.Sub(t.recs[0].first)
	return res, nil
}

func (b *Bench) burst(ctx context.Context) (sample, error) {
	f, err := b.ensureFanout(ctx)
	if err != nil {
		return sample{}, err
	}
	steps := make([]map[string]any, b.sz.burst)
	for i := range steps {
		steps[i] = map[string]any{"delta": "x"}
	}
	res, err := f.runTurn(ctx, steps, 2*time.Minute)
	return sample{value: percentile(res.lat, 0.99).Seconds(), note: fmt.Sprintf("lost %d", res.lost), failed: res.lost > 0}, err
}

// steady paces deltas at steadyRate a second for steadySeconds: deltas,
// then a 10 ms sleep, a hundred times a second. A script cannot adapt, and
// the scripted CLI's own work and the timer's slack stretch each tick by an
// amount that moves with the machine's load; so the load is sent as turns
// of one second, each with the deltas per tick corrected by the rate the
// previous one reached. The rate reached over all of them is shown.
func (b *Bench) steady(ctx context.Context) (sample, error) {
	f, err := b.ensureFanout(ctx)
	if err != nil {
		return sample{}, err
	}
	const tick = 10 * time.Millisecond
	target := float64(b.sz.steadyRate)
	if f.perTick == 0 {
		f.perTick = target * tick.Seconds()
	}
	var lat []time.Duration
	lost, events, span := 0, 0, time.Duration(0)
	for range b.sz.steadySeconds {
		res, err := f.runTurn(ctx, paced(f.perTick, int(time.Second/tick), tick), 2*time.Minute)
		if err != nil {
			return sample{}, err
		}
		lat, lost, events, span = append(lat, res.lat...), lost+res.lost, events+res.events, span+res.span
		if res.span > 0 && res.events > 1 {
			// Corrected by at most half either way: one slow second
			// should not double the next one's load.
			rate := float64(res.events-1) / res.span.Seconds()
			f.perTick *= min(1.5, max(0.5, target/rate))
		}
	}
	rate := float64(events) / span.Seconds()
	return sample{value: percentile(lat, 0.99).Seconds(), note: fmt.Sprintf("%.0f events/s, lost %d", rate, lost), failed: lost > 0}, nil
}

// paced is ticks steps of perTick deltas on average (spread so that the
// total is exact), each followed by a sleep of tick.
func paced(perTick float64, ticks int, tick time.Duration) []map[string]any {
	var steps []map[string]any
	for k := range ticks {
		for range int(float64(k+1)*perTick) - int(float64(k)*perTick) {
			steps = append(steps, map[string]any{"delta": "x"})
		}
		steps = append(steps, map[string]any{"sleep_ms": tick.Milliseconds()})
	}
	return steps
}

// tailFixture is a stored Claude transcript watched over the wire.
type tailFixture struct {
	c    *conn
	file *os.File
	gen  *claudegen.Gen
}

func (t *tailFixture) close() {
	if t.c != nil {
		t.c.close()
	}
	if t.file != nil {
		t.file.Close()
	}
}

// appendTail: a line appended to a watched transcript (of a session cdevd
// does not run), until its claude_message reaches the watcher.
func (b *Bench) appendTail(ctx context.Context) (sample, error) {
	if b.fix.tail == nil {
		b.fix.tail = &tailFixture{}
		t := b.fix.tail
		var err error
		if t.c, err = connect(ctx, b.serve); err != nil {
			return sample{}, err
		}
		ws, err := b.mainWorkspace(t.c)
		if err != nil {
			return sample{}, err
		}
		id := sessionID(2, 0)
		dir := b.projectDir(b.path("ws", "main"))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return sample{}, err
		}
		t.gen = claudegen.New(id, b.path("ws", "main"))
		p := filepath.Join(dir, id+".jsonl")
		if err := t.gen.Write(p, 0, 10); err != nil {
			return sample{}, err
		}
		if t.file, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return sample{}, err
		}
		if _, _, err := t.c.call(rpc.MethodWatch, rpc.WatchParams{WorkspaceID: ws.ID, SessionID: id, AgentType: claude.ID}, nil); err != nil {
			return sample{}, err
		}
	}
	t := b.fix.tail
	var lat []time.Duration
	for range b.sz.appends {
		// Prompts and text answers only: each is a message on its own
		// (a tool call may wait for its result).
		line := t.gen.Message()
		for t.gen.Messages()%4 > 2 || t.gen.Messages()%4 == 0 {
			line = t.gen.Message()
		}
		uuid := claudegen.MessageUUID(t.gen.Messages() - 1)
		start := time.Now()
		if _, err := t.file.WriteString(line + "\n"); err != nil {
			return sample{}, err
		}
		if err := t.c.ws.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
			return sample{}, err
		}
		for {
			_, msg, err := t.c.ws.ReadMessage()
			if err != nil {
				return sample{}, fmt.Errorf("waiting for the appended message: %w", err)
			}
			var e event
			if json.Unmarshal(msg, &e) == nil && e.Method == rpc.EventPrefix+rpc.EventClaudeMessage && e.Params.UUID == uuid {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	return sample{value: percentile(lat, 0.5).Seconds(), value2: percentile(lat, 0.99).Seconds()}, nil
}

// closeFixtures closes the fixtures' connections and waits for their readers.
func (b *Bench) closeFixtures() {
	if b.fix.fanout != nil {
		b.fix.fanout.close()
	}
	if b.fix.tail != nil {
		b.fix.tail.close()
	}
	b.fix.fanout, b.fix.tail = nil, nil
}
