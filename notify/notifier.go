package notify

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/sessions"
)

// Presence says whether someone is looking at a session: nothing is sent
// for a session while someone is (a pending request is, after a wait).
type Presence interface {
	Present(sessionID string) bool
}

// PresenceFunc adapts a function to Presence; sessions.Engine.Watched is
// one (a connection watching the session counts as present).
type PresenceFunc func(sessionID string) bool

// Present calls f.
func (f PresenceFunc) Present(id string) bool { return f(id) }

// DefaultPermissionWait is how long a request may wait for someone present
// to answer it before it is notified anyway.
const DefaultPermissionWait = 60 * time.Second

// inboxSize bounds the events waiting for the notifier's goroutine. Only
// the few event types that matter get here; a full inbox drops (and counts)
// rather than make a session wait.
const inboxSize = 4096

// Config configures a Notifier.
type Config struct {
	Sinks []Sink
	// Presence tells who is looking; nil counts nobody as present.
	Presence Presence
	// PermissionWait: a permission request or question that someone present
	// has not answered after this long is notified anyway (default
	// DefaultPermissionWait).
	PermissionWait time.Duration
	// Machine names this computer in the text (default: the hostname).
	Machine string
	// Workspace names a workspace by id (its name or path); nil shows none.
	Workspace func(id string) string
	// ConsoleURL is the console's base address (asked for each
	// notification: the daemon learns its port after the notifier starts);
	// a notification's URL opens its session there. Nil or "" leaves it out.
	ConsoleURL func() string
	// Metrics receives the notify counters; nil registers nothing.
	Metrics prometheus.Registerer
	// StatusFile, if set, keeps each sink's last failure for `cdevd doctor`.
	StatusFile string
	Logger     *zap.Logger

	// delivered, for tests, hears of every delivery's outcome.
	delivered func(sink string, n Notification, err error)
}

// Notifier turns session events into notifications. It implements
// sessions.Observer.
type Notifier struct {
	cfg     Config
	log     *zap.Logger
	outlets []*outlet
	metrics *metrics
	status  *statusBook

	inbox   chan *sessions.Event
	expired chan string // a pending request's wait ran out
	dropped atomic.Int64

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// Owned by the run goroutine alone.
	pending map[string]*pendingRequest // ID → request
	crashed map[string]bool            // session → its last turn's error was told (an exit after it is not news)
	limits  limitsTold                 // the rate-limit windows already told (limits.go)
}

// pendingRequest is a permission request or question not yet answered.
type pendingRequest struct {
	n     Notification
	sent  bool // notified: its answer must withdraw it
	timer *time.Timer
}

// New starts a Notifier; Close stops it.
func New(cfg Config) *Notifier {
	if cfg.PermissionWait <= 0 {
		cfg.PermissionWait = DefaultPermissionWait
	}
	if cfg.Machine == "" {
		cfg.Machine, _ = os.Hostname()
	}
	if cfg.Presence == nil {
		cfg.Presence = PresenceFunc(func(string) bool { return false })
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{cfg: cfg, log: log, metrics: newMetrics(cfg.Metrics), status: newStatusBook(cfg.StatusFile, log),
		inbox: make(chan *sessions.Event, inboxSize), expired: make(chan string, inboxSize),
		ctx: ctx, cancel: cancel, pending: map[string]*pendingRequest{}, crashed: map[string]bool{}, limits: limitsTold{}}
	n.metrics.dropped(func() float64 { return float64(n.dropped.Load()) })
	for _, s := range cfg.Sinks {
		o := newOutlet(s, n.metrics, n.status, log)
		o.delivered = cfg.delivered
		n.outlets = append(n.outlets, o)
		n.wg.Go(func() { o.run(ctx) })
	}
	n.wg.Go(n.run)
	return n
}

// Close stops the notifier and every sink's goroutine; what is still
// queued is not sent.
func (n *Notifier) Close() {
	n.cancel()
	n.wg.Wait()
}

// Observe is called by the engine under a session's lock: it keeps the few
// event types that matter and never blocks.
func (n *Notifier) Observe(ev *sessions.Event) {
	if !watched[ev.Type] {
		return
	}
	select {
	case n.inbox <- ev:
	default:
		n.dropped.Add(1)
	}
}

func (n *Notifier) run() {
	for {
		select {
		case <-n.ctx.Done():
			for _, p := range n.pending {
				if p.timer != nil {
					p.timer.Stop()
				}
			}
			return
		case ev := <-n.inbox:
			n.handle(ev)
		case id := <-n.expired:
			if p, ok := n.pending[id]; ok && !p.sent {
				p.sent = true
				n.dispatch(p.n)
			}
		}
	}
}

func (n *Notifier) handle(ev *sessions.Event) {
	e, err := decode(ev)
	if err != nil {
		n.log.Warn("undecodable session event", zap.String("type", ev.Type), zap.Error(err))
		return
	}
	note := n.base(e.EventHeader)
	note.Time = ev.At
	switch ev.Type {
	case rpc.EventPermission, rpc.EventQuestion:
		note.RequestID = e.RequestID
		note.ID = e.SessionID + "/" + e.RequestID
		if _, dup := n.pending[note.ID]; dup {
			return // one notification per request, however often it is shown
		}
		describe(ev.Type, e, &note)
		p := &pendingRequest{n: note}
		n.pending[note.ID] = p
		if n.cfg.Presence.Present(e.SessionID) {
			// Someone is looking; if they do not answer, tell anyway.
			id := note.ID
			p.timer = time.AfterFunc(n.cfg.PermissionWait, func() {
				select {
				case n.expired <- id:
				case <-n.ctx.Done():
				}
			})
			return
		}
		p.sent = true
		n.dispatch(note)
	case rpc.EventPermissionResolved:
		id := e.SessionID + "/" + e.RequestID
		p, ok := n.pending[id]
		if !ok {
			return
		}
		delete(n.pending, id)
		if p.timer != nil {
			p.timer.Stop()
		}
		if !p.sent {
			n.suppressed(p.n.Kind)
			return
		}
		w := p.n
		w.Action, w.Time = ActionWithdraw, ev.At
		for _, o := range n.outlets {
			o.withdraw(w)
		}
	case rpc.EventRateLimits:
		n.onLimits(e, note)
	case rpc.EventTurnCompleted, rpc.EventError, rpc.EventSessionEnd:
		switch ev.Type {
		case rpc.EventError:
			// The process may end after this (a crash, a stall killed):
			// the error has told it.
			n.crashed[e.SessionID] = true
		case rpc.EventTurnCompleted:
			delete(n.crashed, e.SessionID)
		case rpc.EventSessionEnd:
			// An exit after a turn's error was told by the error; an exit
			// while idle with a failure code is told here.
			told := n.crashed[e.SessionID]
			delete(n.crashed, e.SessionID)
			if told || e.ExitCode == nil || *e.ExitCode == 0 {
				return
			}
		}
		note.ID = e.SessionID + "/" + ev.Type + "/" + strconv.FormatInt(e.Seq, 10)
		describe(ev.Type, e, &note)
		if n.cfg.Presence.Present(e.SessionID) {
			n.suppressed(note.Kind)
			return
		}
		n.dispatch(note)
	}
}

// base is a notification's common part for the session of h.
func (n *Notifier) base(h rpc.EventHeader) Notification {
	note := Notification{Action: ActionNotify, Machine: n.cfg.Machine, WorkspaceID: h.WorkspaceID,
		Runtime: h.AgentType, SessionID: h.SessionID}
	if n.cfg.Workspace != nil {
		note.Workspace = n.cfg.Workspace(h.WorkspaceID)
	}
	if n.cfg.ConsoleURL != nil {
		if base := n.cfg.ConsoleURL(); base != "" {
			note.URL = SessionURL(base, h.WorkspaceID, h.SessionID, h.AgentType)
		}
	}
	return note
}

// SessionURL is the console's address of a session: the console
// (web/push.ts, readClicked) reads the fragment, which is never sent to
// the server, and opens the session once connected. The runtime is part
// of it because watching a session names its agent type.
func SessionURL(console, workspaceID, sessionID, agentType string) string {
	u := console + "#session=" + url.QueryEscape(sessionID) + "&workspace=" + url.QueryEscape(workspaceID)
	if agentType != "" {
		u += "&agent=" + url.QueryEscape(agentType)
	}
	return u
}

func (n *Notifier) dispatch(note Notification) {
	for _, o := range n.outlets {
		o.notify(note)
	}
}

func (n *Notifier) suppressed(k Kind) {
	for _, o := range n.outlets {
		if o.wants(k) {
			n.metrics.count(o.sink.Name(), k, resultSuppressed)
		}
	}
}
