package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// load is the traffic of the soak.
type load struct {
	o   options
	p   *daemonProc
	cnt *counters

	rngMu sync.Mutex
	rng   *rand.Rand

	workspaces []rpc.Workspace
	owners     []*owner
	watchers   []*watcher
	end        time.Time
}

// intN is a shared random number in [0, n).
func (l *load) intN(n int) int {
	l.rngMu.Lock()
	defer l.rngMu.Unlock()
	return l.rng.IntN(n)
}

// between is a random duration in [lo, hi).
func (l *load) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(l.intN(int(hi-lo)))
}

// parallel runs f(0..n-1) with at most k at a time and returns the first error.
func parallel(n, k int, f func(i int) error) error {
	sem := make(chan struct{}, k)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// setUp adds the workspaces, starts the sessions (one owner connection
// each) and connects the watchers.
func (l *load) setUp(ctx context.Context, root string) error {
	c, err := dial(ctx, l.p.URL, l.p.Token, nil)
	if err != nil {
		return err
	}
	defer c.close(leaveClose)
	for i := range l.o.workspaces {
		dir := filepath.Join(root, "workspaces", fmt.Sprintf("w%02d", i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		var w rpc.Workspace
		if err := c.call(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w); err != nil {
			return err
		}
		l.workspaces = append(l.workspaces, w)
	}
	l.owners = make([]*owner, l.o.sessions)
	if err := parallel(l.o.sessions, 8, func(i int) error {
		o, err := l.startOwner(ctx, l.workspaces[i%len(l.workspaces)])
		l.owners[i] = o
		return err
	}); err != nil {
		return fmt.Errorf("starting sessions: %w", err)
	}
	progress("%d sessions started", len(l.owners))
	l.watchers = make([]*watcher, l.o.conns-l.o.sessions)
	for i := range l.watchers {
		l.watchers[i] = &watcher{l: l, o: l.owners[l.intN(len(l.owners))], subscribe: i%10 == 0}
	}
	if err := parallel(len(l.watchers), 16, func(i int) error { return l.watchers[i].connect(ctx) }); err != nil {
		return fmt.Errorf("connecting watchers: %w", err)
	}
	progress("%d sessions running, %d watchers connected", len(l.owners), len(l.watchers))
	return nil
}

// run drives the load until its end, then lets the watchers go.
func (l *load) run(ctx context.Context) {
	l.end = time.Now().Add(l.o.duration)
	var wg sync.WaitGroup
	for _, o := range l.owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.run(ctx)
		}()
	}
	for _, w := range l.watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx)
		}()
	}
	wg.Wait()
}

// closeAll stops every session and closes every owner's connection.
func (l *load) closeAll(ctx context.Context) {
	_ = parallel(len(l.owners), 8, func(i int) error {
		o := l.owners[i]
		defer o.c.close(leaveClose)
		c := o.c
		if c.readErr() != nil {
			// The owner lost its connection (counted as a failure): the
			// session still has to stop for the figures to mean anything.
			nc, err := dial(ctx, l.p.URL, l.p.Token, nil)
			if err != nil {
				l.cnt.fail("stop %s: %v", o.id, err)
				return nil
			}
			defer nc.close(leaveClose)
			c = nc
		}
		var res rpc.SessionStopResult
		if err := c.call(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: o.id, AgentType: scripted.ID}, &res); err != nil {
			l.cnt.fail("stop %s: %v", o.id, err)
		}
		return nil
	})
}

// clear deletes the sessions and removes the workspaces.
func (l *load) clear(ctx context.Context) error {
	c, err := dial(ctx, l.p.URL, l.p.Token, nil)
	if err != nil {
		return err
	}
	defer c.close(leaveClose)
	for _, o := range l.owners {
		var res rpc.DeleteResult
		if err := c.call(ctx, rpc.MethodDelete, rpc.SessionRefParams{WorkspaceID: o.ws.ID, SessionID: o.id, AgentType: scripted.ID}, &res); err != nil {
			return err
		}
	}
	for _, w := range l.workspaces {
		if err := c.call(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil); err != nil {
			return err
		}
	}
	return nil
}

// owner runs one session and sends it a turn every few seconds.
type owner struct {
	l    *load
	c    *conn
	ws   rpc.Workspace
	id   string
	ends chan string // terminal events of its turns
}

func (l *load) startOwner(ctx context.Context, ws rpc.Workspace) (*owner, error) {
	o := &owner{l: l, ws: ws, ends: make(chan string, 4)}
	c, err := dial(ctx, l.p.URL, l.p.Token, func(method string, h rpc.EventHeader) {
		l.cnt.events.Add(1)
		switch method {
		case rpc.EventPrefix + rpc.EventTurnCompleted, rpc.EventPrefix + rpc.EventError, rpc.EventPrefix + rpc.EventSessionStopped:
			select {
			case o.ends <- method:
			default:
			}
		}
	})
	if err != nil {
		return nil, err
	}
	o.c = c
	var res rpc.SessionStartResult
	if err := c.call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: ws.ID, AgentType: scripted.ID}, &res); err != nil {
		c.close(leaveClose)
		return nil, err
	}
	o.id = res.SessionID
	return o, nil
}

// prompt is a turn of a few dozen deltas around a pause.
func (o *owner) prompt() string {
	var steps []map[string]any
	n := 10 + o.l.intN(30)
	for i := range n {
		if i == n/2 {
			steps = append(steps, map[string]any{"sleep_ms": 100 + o.l.intN(400)})
		}
		steps = append(steps, map[string]any{"delta": fmt.Sprintf("token %d ", i)})
	}
	steps = append(steps, map[string]any{"message": "done"})
	b, _ := json.Marshal(map[string]any{"steps": steps})
	return string(b)
}

func (o *owner) run(ctx context.Context) {
	l := o.l
	for {
		pause := l.between(l.o.turnEvery/2, l.o.turnEvery*3/2)
		if time.Now().Add(pause).After(l.end) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		var res rpc.SessionSendResult
		if err := o.c.call(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: o.id, Prompt: o.prompt(), AgentType: scripted.ID}, &res); err != nil {
			l.cnt.fail("send to %s: %v", o.id, err)
			return
		}
		l.cnt.sends.Add(1)
		select {
		case end := <-o.ends:
			if end != rpc.EventPrefix+rpc.EventTurnCompleted {
				l.cnt.fail("a turn of %s ended with %s", o.id, end)
				return
			}
			l.cnt.turns.Add(1)
		case <-o.c.done:
			l.cnt.dropped(o.c)
			l.cnt.fail("owner of %s disconnected: %v", o.id, o.c.readErr())
			return
		case <-time.After(time.Minute):
			l.cnt.fail("a turn of %s did not end within a minute", o.id)
			return
		case <-ctx.Done():
			return
		}
	}
}

// watcher follows one session across reconnections, checking that its
// events continue where it left them.
type watcher struct {
	l         *load
	o         *owner
	subscribe bool
	c         *conn

	mu    sync.Mutex
	last  int64 // the last seq seen; 0 before the first event
	live  bool  // the watch answered: events are checked as they come
	early []int64
}

// note takes in an event of the watched session.
func (w *watcher) note(method string, h rpc.EventHeader) {
	if h.SessionID != w.o.id || h.Seq == 0 {
		return // another session, or a workspace event (subscribers), which has no seq
	}
	w.l.cnt.events.Add(1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.live {
		w.early = append(w.early, h.Seq) // checked once the watch says where they start
		return
	}
	w.check(h.Seq)
}

// check accepts seq if it follows the last one; under mu.
func (w *watcher) check(seq int64) {
	if w.last != 0 && seq != w.last+1 {
		w.l.cnt.fail("watcher of %s: seq %d after %d", w.o.id, seq, w.last)
	}
	w.last = seq
}

// connect dials, subscribes (one watcher in ten), and watches since the
// last seq seen.
func (w *watcher) connect(ctx context.Context) error {
	l := w.l
	c, err := dial(ctx, l.p.URL, l.p.Token, w.note)
	if err != nil {
		return err
	}
	if w.subscribe {
		if err := c.call(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.o.ws.ID}, nil); err != nil {
			c.close(leaveClose)
			return err
		}
	}
	w.mu.Lock()
	w.live, w.early = false, nil
	var since *int64
	if w.last != 0 {
		s := w.last
		since = &s
	}
	w.mu.Unlock()
	var res rpc.WatchResult
	if err := c.call(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.o.ws.ID, SessionID: w.o.id, AgentType: scripted.ID,
		SinceSeq: since}, &res); err != nil {
		c.close(leaveClose)
		return err
	}
	w.mu.Lock()
	if res.Gap {
		l.cnt.gaps.Add(1)
		w.last = res.LastSeq
	}
	if since == nil {
		w.last = res.LastSeq
	}
	for _, seq := range w.early {
		w.check(seq)
	}
	w.live, w.early = true, nil
	w.mu.Unlock()
	w.c = c
	return nil
}

func (w *watcher) run(ctx context.Context) {
	l := w.l
	for {
		stay := l.between(5*time.Second, time.Minute)
		cut := false
		select {
		case <-ctx.Done():
			w.c.close(leaveClose)
			return
		case <-time.After(time.Until(l.end)):
			w.c.close(leaveClose)
			return
		case <-w.c.done:
			cut = true
		case <-time.After(stay):
		}
		if cut {
			if w.c.closeCode() != 1013 { // too slow: the one reason a server may cut a client
				l.cnt.dropped(w.c)
				l.cnt.fail("watcher of %s disconnected: %v", w.o.id, w.c.readErr())
			}
			l.cnt.cutOff.Add(1)
		} else {
			// Now and then it reads some history before leaving.
			if l.intN(4) == 0 {
				var res rpc.MessagesResult
				if err := w.c.call(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.o.ws.ID, SessionID: w.o.id,
					AgentType: scripted.ID, Limit: 5, Order: rpc.OrderDesc}, &res); err != nil {
					l.cnt.fail("messages of %s: %v", w.o.id, err)
				}
				l.cnt.calls.Add(1)
			}
			w.c.close(leave(l.intN(int(leaveKinds))))
		}
		l.cnt.reconnects.Add(1)
		if err := w.connect(ctx); err != nil {
			l.cnt.fail("watcher of %s reconnecting: %v", w.o.id, err)
			return
		}
	}
}

// counters are what the load saw.
type counters struct {
	turns, sends, events, reconnects, cutOff, gaps, calls atomic.Int64
	unresponsive                                          atomic.Int64 // dropped by the server: pings unanswered
	failures                                              atomic.Int64
	mu                                                    sync.Mutex
	firstFailures                                         []string
}

// dropped counts a client the server disconnected with 1001 (ping timeout):
// on a machine too busy to run the soak's clients, pongs come too late.
func (c *counters) dropped(cn *conn) {
	if cn.closeCode() == websocket.CloseGoingAway {
		c.unresponsive.Add(1)
	}
}

func (c *counters) fail(format string, args ...any) {
	c.failures.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.firstFailures) < 20 {
		c.firstFailures = append(c.firstFailures, fmt.Sprintf(format, args...))
	}
}
