package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
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
		c, err := connectAs(ctx, b.serve, true)
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

// read records the events watcher i receives into the current turn. An
// event arrives when the socket read that brought in its last byte returned
// (stampConn): events the daemon wrote together arrive together, however
// long this goroutine then takes to go through them. Frames are read into
// one buffer, reused, and only their header is looked at: a hundred readers
// share two cores with the daemon, and whatever they spend delays what they
// measure.
func (f *fanout) read(i int, c *conn) {
	defer f.readers.Done()
	buf := make([]byte, 0, 4096)
	var hc headerCache
	for {
		var err error
		buf, err = c.readFrame(buf[:0])
		arrived := c.stamp.last
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
		h, ok := hc.header(buf)
		if !ok {
			continue
		}
		r := &t.recs[i]
		if len(r.seqs) == 0 {
			r.first = arrived
		}
		r.end = arrived
		r.lat = append(r.lat, arrived.Sub(h.created))
		r.seqs = append(r.seqs, h.seq)
		if h.last {
			r.finished = true
			t.done.Done()
		}
	}
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
	again  int             // deliveries of a seq not after the one before: twice, or out of order
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
	for i := range t.recs {
		// Room for the turn's events up front: the readers then do not
		// grow (and copy) these while they measure.
		t.recs[i].lat = make([]time.Duration, 0, len(steps)+16)
		t.recs[i].seqs = make([]int64, 0, len(steps)+16)
	}
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
	for _, r := range t.recs {
		res.lat = append(res.lat, r.lat...)
	}
	res.lost, res.again = tally(t.recs)
	res.events, res.span = len(t.recs[0].seqs), t.recs[0].end.Sub(t.recs[0].first)
	return res, nil
}

// tally checks that every watcher received the same seqs once each and in
// order: from the lowest any saw to the highest a watcher still connected
// saw (turn_completed's). lost counts the seqs a watcher missed (a gap, or
// the end it never got because it was cut off); again counts deliveries
// whose seq was not above the one before (a duplicate, or out of order).
func tally(recs []watchRec) (lost, again int) {
	lo, hi := int64(-1), int64(-1)
	for _, r := range recs {
		if len(r.seqs) > 0 && (lo < 0 || r.seqs[0] < lo) {
			lo = r.seqs[0]
		}
		if len(r.seqs) > 0 && !r.cut {
			hi = max(hi, r.seqs[len(r.seqs)-1])
		}
	}
	for _, r := range recs {
		seen := make(map[int64]bool, len(r.seqs))
		prev := int64(-1)
		for _, s := range r.seqs {
			if s <= prev {
				again++
			}
			prev = max(prev, s)
			seen[s] = true
		}
		for s := lo; s <= hi; s++ {
			if !seen[s] {
				lost++
			}
		}
	}
	return lost, again
}

// note says what went wrong in a turn's deliveries, and whether anything did.
func (r turnResult) note() (string, bool) {
	if r.again > 0 {
		return fmt.Sprintf("lost %d, %d twice or out of order", r.lost, r.again), true
	}
	return fmt.Sprintf("lost %d", r.lost), r.lost > 0
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
	note, failed := res.note()
	return sample{value: percentile(res.lat, 0.99).Seconds(), note: note, failed: failed}, err
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
	var all turnResult
	events, span := 0, time.Duration(0)
	for range b.sz.steadySeconds {
		res, err := f.runTurn(ctx, paced(f.perTick, int(time.Second/tick), tick), 2*time.Minute)
		if err != nil {
			return sample{}, err
		}
		lat, events, span = append(lat, res.lat...), events+res.events, span+res.span
		all.lost, all.again = all.lost+res.lost, all.again+res.again
		if res.span > 0 && res.events > 1 {
			// Corrected by at most half either way: one slow second
			// should not double the next one's load.
			rate := float64(res.events-1) / res.span.Seconds()
			f.perTick *= min(1.5, max(0.5, target/rate))
		}
	}
	rate := float64(events) / span.Seconds()
	note, failed := all.note()
	return sample{value: percentile(lat, 0.99).Seconds(), note: fmt.Sprintf("%.0f events/s, %s", rate, note), failed: failed}, nil
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

// closeFixtures closes the fixtures' connections and waits for their readers.
func (b *Bench) closeFixtures() {
	if b.fix.fanout != nil {
		b.fix.fanout.close()
	}
	if b.fix.repo != nil {
		b.fix.repo.searched = false // the next daemon builds its index again
	}
	if b.fix.tail != nil {
		b.fix.tail.close()
	}
	b.fix.fanout, b.fix.tail = nil, nil
}
