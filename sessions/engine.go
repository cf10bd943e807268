package sessions

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
	"github.com/cdevd/cdevd/workspaces/turns"
)

// Watcher is where a client's events go: one per connection.
type Watcher interface {
	// ClientID names the client (for resolved_by).
	ClientID() string
	// Deliver enqueues a live event without blocking; a full queue is the
	// watcher's problem (the transport disconnects it), never the session's.
	Deliver(ev *Event)
	// DeliverWait enqueues a replayed event, waiting for room: a replay
	// goes at the client's pace, and blocks nobody else while it waits.
	DeliverWait(ctx context.Context, ev *Event) error
	// Cut disconnects a client that fell too far behind for a replay to
	// catch up; it reconnects with since_seq and learns of the gap.
	Cut(reason string)
}

// Observer sees every session event as it is emitted. Observe is called
// with the session's lock held, in the session's order: it must return at
// once and must not call back into the engine (hand the event to a
// goroutine of its own for anything more).
type Observer interface {
	Observe(ev *Event)
}

// Router is what the engine needs of the runtime registry: the adapter
// that serves a method for an agent_type (or the wire error saying why
// none does), and the runtimes registered. The registry implements it;
// the engine builds its own wire errors with package rpc.
type Router interface {
	Route(ctx context.Context, method, agentType string) (runtimes.Adapter, error)
	IDs() []string
	Adapter(id string) (runtimes.Adapter, bool)
	// Offer is what a runtime's CLI offers (models, efforts); false when
	// it has not said (configure.go then refuses nothing).
	Offer(id string) (runtimes.Offer, bool)
}

// Config configures an Engine.
type Config struct {
	Registry   Router
	Workspaces *workspaces.Store
	// Epoch identifies this server run; seqs are only comparable within it.
	Epoch string
	// TrashDir receives deleted transcripts.
	TrashDir string
	// Watcher watches subscribed workspaces' transcript directories; nil
	// uses the process's shared one (one inotify instance for everything).
	Watcher *fswatch.Watcher

	// ReplayEvents and ReplayAge: each session keeps at least this many
	// events or this much time of them (10,000 and 5 minutes by default),
	// and never more than ReplayMax (100,000) nor ReplayBytes of frames.
	ReplayEvents int
	ReplayAge    time.Duration
	ReplayMax    int
	// ReplayBytes bounds the frames each session keeps for replay, whatever
	// the count and age say (DefaultReplayBytes when zero).
	ReplayBytes int

	// IdleTimeout ends a session's process after this long without a turn
	// (the session resumes on the next send). Zero means 30 minutes;
	// negative disables it.
	IdleTimeout time.Duration
	// MaxProcesses caps live processes per runtime (default 8); starting one
	// more ends the least recently active idle one first.
	MaxProcesses int
	// StopTimeout bounds a graceful stop before the process group is killed.
	StopTimeout time.Duration

	// Observer, if set, sees every event every session emits, as watchers
	// do but whether or not anyone watches (notifications are built on it).
	Observer Observer
	// Limits, if set, keeps the rate limits runtimes report (usage.go);
	// without it they are not told.
	Limits LimitsBook

	// Turns, if set, snapshots the workspace around each turn (event
	// turn_diff, session/turns, session/turn_diff, session/revert) and
	// TurnStore keeps the snapshots' ids; both or neither. Close closes
	// Turns (its tree watches) once the last snapshot is taken.
	Turns     *turns.Snapshotter
	TurnStore *turns.Store

	// QueueDir keeps each session's follow-up queue (queue.go) across
	// restarts; "" keeps queues in memory only.
	QueueDir string
	// ReadDirs are folders every agent may read besides its workspace
	// (runtimes.StartRequest.ReadDirs): the attachments' folder.
	ReadDirs []string

	Logger *zap.Logger
}

// Engine runs every session of the daemon.
type Engine struct {
	cfg Config
	log *zap.Logger
	reg Router
	ws  *workspaces.Store
	// watcher is shared by every workspace's notifier.
	watcher *fswatch.Watcher
	// workspaceWatch, when set, also watches each subscribed workspace's
	// folder (workspace_events.go).
	workspaceWatch atomic.Pointer[WorkspaceWatch]

	// Lock order: mu before any session's mu; subMu is a leaf taken by
	// sessions while they hold their own lock, so it guards nothing else.
	mu       sync.Mutex
	sessions map[string]*session
	active   map[string]activeRef           // workspace id → current session
	dirs     map[string]map[string]struct{} // workspace id → directories sessions ran in
	closed   bool

	subMu     sync.Mutex
	subs      map[string]map[Watcher]struct{} // workspace id → subscribers
	notifiers map[string]*notifier            // workspace id → transcript watcher, while subscribed

	ctx    context.Context // ends with Close: background work stops
	cancel context.CancelFunc
	wg     sync.WaitGroup // replays and other background work
	// turnsWG counts end-of-turn snapshots (turndiff.go), started under a
	// session's lock, where e.mu (which track takes) may not be taken.
	turnsWG sync.WaitGroup

	// qmu guards queues (a leaf); queueWG counts queue drains and saves
	// started under a session's lock, as turnsWG does.
	qmu     sync.Mutex
	queues  map[string]*queue // session id → its follow-up queue
	queueWG sync.WaitGroup
	closing atomic.Bool // set as Close begins: no drain starts after
}

// New creates an Engine.
func New(cfg Config) *Engine {
	if cfg.ReplayEvents <= 0 {
		cfg.ReplayEvents = 10_000
	}
	if cfg.ReplayAge <= 0 {
		cfg.ReplayAge = 5 * time.Minute
	}
	if cfg.ReplayMax < cfg.ReplayEvents {
		cfg.ReplayMax = max(100_000, cfg.ReplayEvents)
	}
	if cfg.ReplayBytes <= 0 {
		cfg.ReplayBytes = DefaultReplayBytes
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.MaxProcesses <= 0 {
		cfg.MaxProcesses = 8
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Epoch == "" {
		cfg.Epoch = uuid.NewString()
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{cfg: cfg, log: cfg.Logger, reg: cfg.Registry, ws: cfg.Workspaces, ctx: ctx, cancel: cancel,
		watcher: fswatch.Or(cfg.Watcher), sessions: map[string]*session{}, subs: map[string]map[Watcher]struct{}{},
		notifiers: map[string]*notifier{}, dirs: map[string]map[string]struct{}{},
		active: map[string]activeRef{}, queues: loadQueues(cfg.QueueDir, cfg.Logger)}
	e.pruneTurns()
	return e
}

// Epoch is this server run's id.
func (e *Engine) Epoch() string { return e.cfg.Epoch }

// Running counts sessions whose process is alive.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, s := range e.sessions {
		if s.isRunning() {
			n++
		}
	}
	return n
}

func (e *Engine) register(s *session, caller Watcher) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return rpc.Errorf(rpc.CodeInternalError, nil, "server is shutting down")
	}
	old, ok := e.sessions[s.id]
	if ok && !old.external {
		e.mu.Unlock()
		return rpc.SessionBusy(s.id, "session is already running")
	}
	e.sessions[s.id] = s
	e.mu.Unlock()
	if ok {
		// The session was followed through its transcript; now cdevd runs
		// it, with seqs from 1 again. Its watchers reconnect, are told of
		// the gap, and watch the run.
		old.retire(caller)
	}
	return nil
}

func (e *Engine) forget(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
}

func (e *Engine) lookup(id string) *session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[id]
}

// Watched reports whether a connection that counts (by its client id)
// watches session id now: the simplest sign that someone is looking at it.
func (e *Engine) Watched(id string, counts func(clientID string) bool) bool {
	s := e.lookup(id)
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		if counts(w.ClientID()) {
			return true
		}
	}
	return false
}

// session returns a live (cdevd-run) session or SessionNotFound.
func (e *Engine) session(id string) (*session, error) {
	if id == "" {
		return nil, rpc.InvalidParams("session_id", "required")
	}
	s := e.lookup(id)
	if s == nil || s.external {
		return nil, rpc.SessionNotFound(id)
	}
	return s, nil
}

// checkAgent enforces that a routed call's agent_type matches the session's.
func (e *Engine) checkAgent(ctx context.Context, method, agentType string, s *session) error {
	if agentType == "" || agentType == s.agentType {
		return nil
	}
	if _, err := e.reg.Route(ctx, method, agentType); err != nil {
		return err
	}
	return rpc.InvalidParams("agent_type", fmt.Sprintf("session %s runs %s, not %s", s.id, s.agentType, agentType))
}

// State is a session's exact state.
func (e *Engine) State(id string) (rpc.SessionStateResult, error) {
	s, err := e.session(id)
	if err != nil {
		return rpc.SessionStateResult{}, err
	}
	st := s.state()
	st.Context = s.contextNow() // usage.go
	return st, nil
}

// track counts a background goroutine about to start, unless the engine is
// closing; Close waits for every one counted.
func (e *Engine) track() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.wg.Add(1)
	return true
}

// Close ends every session's process and tail. The engine refuses new
// sessions afterwards.
func (e *Engine) Close(ctx context.Context) {
	e.closing.Store(true)
	e.mu.Lock()
	e.closed = true
	list := make([]*session, 0, len(e.sessions))
	for _, s := range e.sessions {
		list = append(list, s)
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.external {
				s.closeTail()
			} else {
				s.stop(ctx, "server shutting down")
			}
		}()
	}
	wg.Wait()
	e.turnsWG.Wait() // the last turns' snapshots, before their context ends
	if e.cfg.Turns != nil {
		e.cfg.Turns.Close()
	}
	e.queueWG.Wait() // drains see the engine closed; saves finish
	e.cancel()
	e.subMu.Lock()
	notifiers := e.notifiers
	e.notifiers = map[string]*notifier{}
	e.subMu.Unlock()
	for _, n := range notifiers {
		n.stop()
	}
	e.wg.Wait()
}
