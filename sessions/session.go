package sessions

import (
	"io"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
	"github.com/cdevd/cdevd/workspaces/turns"
)

// session is one session id and, while it runs, its one process.
//
// Locking: opMu serializes operations that change the process (start, send,
// stop, reap) and may be held across slow adapter calls; mu guards state
// and the event log and is never held across a call into the adapter,
// because adapters deliver events synchronously from their own goroutines.
type session struct {
	e           *Engine
	id          string
	workspaceID string
	dir         string
	agentType   string
	adapter     runtimes.Adapter
	opts        StartOptions // model, effort and mode change by configure.go: written under opMu and mu, read under either
	external    bool         // followed through its transcript, not run by cdevd
	tail        io.Closer    // external sessions only
	log         *zap.Logger

	opMu sync.Mutex

	mu         sync.Mutex
	st         rpc.SessionStatus
	activity   rpc.Activity
	startedAt  time.Time
	lastActive time.Time
	rt         runtimes.Session // nil while no process runs
	gen        int              // process generation; events of older ones are ignored
	hadTurn    bool             // the runtime has stored history to resume
	stopping   bool             // a user stop is under way
	stopReason string           // why, for its session_stopped
	reaping    bool             // an idle process is being ended; its exit is not news
	exitedGen  int              // generation of the last process that exited
	gone       bool             // forgotten by the engine: it must never start a process again
	turnOpen   bool
	// interrupted: the user interrupted the open turn, so its end pauses
	// the follow-up queue (queue.go) instead of running the next prompt.
	interrupted bool
	// The open turn's starting snapshot (turndiff.go); snapping is closed
	// when the last turn's end snapshot is recorded.
	turnRepo   *turns.Repo
	turnBase   string
	snapping   chan struct{}
	pending    []*prompt
	unsettled  []rpc.Message // emitted, maybe not in the transcript yet (overlay.go)
	events     *eventLog
	seq        int64
	watchers   map[Watcher]struct{}
	catchingUp map[Watcher]*replay // replaying; live once caught up
	idle       *time.Timer
	// Quiet sessions (no process, nobody watching) give back their replay
	// buffer after ReplayAge (quiet.go).
	lastWatched time.Time
	quiet       *time.Timer
	// context is how full the context window is, as the CLI last said
	// (usage.go); nil until it says.
	context *rpc.ContextUsage
}

func (e *Engine) newSession(id string, ws workspaces.Workspace, a runtimes.Adapter, o StartOptions) *session {
	now := time.Now()
	return &session{e: e, id: id, workspaceID: ws.ID, dir: ws.Path, agentType: a.Info().ID,
		adapter: a, opts: o, hadTurn: o.Resume, st: rpc.StatusStarting, activity: rpc.ActivityIdle,
		startedAt: now, lastActive: now,
		events:   newEventLog(e.cfg.ReplayEvents, e.cfg.ReplayMax, e.cfg.ReplayBytes, e.cfg.ReplayAge),
		watchers: map[Watcher]struct{}{},
		log:      sessionLog(e.log, id, a.Info().ID)}
}

// sessionLog is a session's logger. A session whose runtime chooses its id
// has none yet: the id is added when the runtime gives it (startProcess),
// once, rather than beside an empty one.
func sessionLog(log *zap.Logger, id, runtime string) *zap.Logger {
	if id == "" {
		return log.With(zap.String("runtime", runtime))
	}
	return log.With(zap.String("session", id), zap.String("runtime", runtime))
}

func (s *session) status() rpc.SessionStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func (s *session) isRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt != nil
}

func (s *session) lastActiveTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastActive
}

func (s *session) state() rpc.SessionStateResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := rpc.SessionStateResult{SessionID: s.id, WorkspaceID: s.workspaceID, AgentType: s.agentType,
		Status: s.st, Activity: s.activity, StartedAt: rpc.FormatTime(s.startedAt),
		LastActive: rpc.FormatTime(s.lastActive), IsRunning: s.rt != nil,
		WaitingForInput: len(s.pending) > 0, Epoch: s.e.cfg.Epoch, LastSeq: s.seq,
		Model: s.opts.Model, Effort: s.opts.Effort, PermissionMode: s.opts.PermissionMode}
	for _, p := range s.pending {
		res.Pending = append(res.Pending, rpc.PendingRequest{RequestID: p.id, Type: p.kind, ToolName: p.tool, Summary: p.summ})
	}
	if q := s.e.queueOf(s.id, nil); q != nil {
		if snap := q.snapshot(); len(snap.Items) > 0 {
			res.Queue = &snap
		}
	}
	return res
}
