package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/proc"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// clientVersion is what clientInfo.version says; Codex puts it in its
// User-Agent ("cdevd/<codex version> (…) (cdevd; 1)").
const clientVersion = "1"

// callTimeout bounds a request to a running app-server (turn/start,
// turn/interrupt), which answers at once when it is alive.
const callTimeout = 30 * time.Second

// session is one running `codex app-server` serving one thread. Events go
// through a kit.Emitter; the turn and its prompts are a kit.Turn.
type session struct {
	id    string
	log   *zap.Logger
	pol   threadPolicy
	model string // the thread's model, for plan mode's settings
	// effort is the reasoning effort asked for ("" Codex's default); with
	// a model asked for, it goes with every turn/start (configure.go).
	effort     string
	modelAsked bool // a model was asked for (start or a turn), not only reported by Codex
	em         *kit.Emitter
	turn       *kit.Turn
	p          *proc.Process
	peer       *stdiorpc.Peer
	stdout     *io.PipeWriter // proc's stdout lines, fed to the peer

	// handler state: touched only on the peer's dispatch goroutine, except
	// turnID, usage and ended, which Send and Interrupt read too (mu).
	items map[string]json.RawMessage // fileChange items in progress, by id (their approvals carry no paths)
	// streaming is the agent message being streamed (deltas, no
	// item/completed yet): an interrupt leaves it open, and cdevd closes it.
	// Touched only on the peer's dispatch goroutine.
	streaming *partial
	reasoning *partial // the reasoning item being streamed: its budget only

	mu        sync.Mutex
	turnID    string        // the running turn's Codex id, once known
	turnKnown chan struct{} // closed once turnID is known
	ended     map[string]bool
	usage     rpc.Usage
	retryTurn string // the turn whose model call retries counts (onError)
	retries   int
	// codexTurn is closed once Codex reports the end (turn/completed) of the
	// last turn it was asked to start; nil before the first. A turn cdevd
	// ends earlier (a final error notification, a turn given up) may still
	// run in Codex, which would merge a new turn/start into it.
	codexTurn chan struct{}

	stop *kit.Stopper
	// ending is p, with the peer's backlog dropped first: every stop ends
	// through it (kit.DiscardOnStop).
	ending   kit.Process
	exitDone chan struct{} // closed once ProcessExited was emitted
}

// start runs the process and the handshake; on any failure the process is
// gone when it returns.
func (a *Adapter) start(ctx context.Context, req runtimes.StartRequest, pol threadPolicy, sink runtimes.Sink) (runtimes.Session, error) {
	began := time.Now()
	pr, pw := io.Pipe()
	s := &session{
		log:        a.log,
		pol:        pol,
		model:      req.Model,
		effort:     req.Effort,
		modelAsked: req.Model != "",
		stdout:     pw,
		items:      map[string]json.RawMessage{},
		ended:      map[string]bool{},
		turnKnown:  make(chan struct{}),
		stop:       kit.NewStopper(),
		exitDone:   make(chan struct{}),
	}
	s.em = kit.NewEmitter(sink, a.log)
	s.turn = kit.NewTurn(s.em, nil)
	p, err := proc.Start(proc.Config{
		Path:         a.cfg.Bin,
		Args:         []string{"app-server"},
		Dir:          req.Dir,
		Env:          a.cfg.Env,
		StallTimeout: a.cfg.StallTimeout,
		KillGrace:    a.cfg.KillGrace,
		// The peer reads what the runner reads; the pipe write returns once
		// the peer has taken the line, so nothing is lost at exit.
		OnLine: func(line []byte) {
			if a.tap != nil {
				a.tap(line)
			}
			_, _ = pw.Write(append(line, '\n'))
		},
		OnStderr:   func(line []byte) { a.log.Debug("codex stderr", zap.ByteString("line", line)) },
		OnOversize: s.oversize,
		OnStall:    s.stall,
		Logger:     a.log,
	})
	if err != nil {
		pw.Close()
		pr.Close()
		return nil, fmt.Errorf("codex: %w", err)
	}
	s.p = p
	s.turn.SetStaller(p)
	s.peer = stdiorpc.New(pr, p.Stdin(), stdiorpc.Handlers{
		OnRequest:      s.onRequest,
		OnNotification: s.onNotification,
		OnError:        func(err error) { s.log.Warn("codex: skipped a line", zap.Error(err)) },
	}, stdiorpc.Options{Logger: a.log})
	s.ending = kit.DiscardOnStop(p, func() {
		s.peer.Discard()
		s.em.Release()
	})
	s.stop.Watch(s.ending)
	go s.wait()

	id, err := a.handshake(ctx, s, req)
	if err != nil {
		s.stop.Async("start_failed")
		<-s.exitDone
		return nil, err
	}
	s.id = id
	s.log = a.log.With(zap.String("session", id))
	s.em.Run()
	s.log.Info("codex started", zap.Int("pid", p.Pid()), zap.Bool("resume", req.Resume),
		zap.String("model", req.Model), zap.String("dir", req.Dir),
		zap.String("approval", pol.Approval), zap.String("sandbox", pol.Sandbox), zap.Bool("plan", pol.Plan),
		zap.Duration("start_latency", time.Since(began)))
	return s, nil
}

// handshake initializes the app-server and starts or resumes the thread,
// returning its id.
func (a *Adapter) handshake(ctx context.Context, s *session, req runtimes.StartRequest) (string, error) {
	initParams := map[string]any{
		"clientInfo": map[string]string{"name": "cdevd", "title": "cdevd", "version": clientVersion},
	}
	if s.pol.Plan {
		// collaborationMode (plan) is behind the experimental API.
		initParams["capabilities"] = map[string]any{"experimentalApi": true}
	}
	var init struct {
		CodexHome string `json:"codexHome"`
	}
	if err := s.peer.Call(ctx, "initialize", initParams, &init); err != nil {
		return "", fmt.Errorf("codex: initialize: %w", a.callErr(s, err))
	}
	a.checkHome(init.CodexHome)
	if err := s.peer.Notify("initialized", nil); err != nil {
		return "", fmt.Errorf("codex: initialized: %w", a.callErr(s, err))
	}
	params := map[string]any{"cwd": req.Dir, "approvalPolicy": s.pol.Approval, "sandbox": s.pol.Sandbox}
	if req.Model != "" {
		params["model"] = req.Model
	}
	method := "thread/start"
	if req.Resume {
		method = "thread/resume"
		params["threadId"] = req.SessionID
		// The reply would otherwise carry every turn of the thread, in one
		// line that can outgrow any limit; history comes from the rollout.
		params["excludeTurns"] = true
	}
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
		Model string `json:"model"`
	}
	if err := s.peer.Call(ctx, method, params, &res); err != nil {
		var rerr *stdiorpc.Error
		if req.Resume && errors.As(err, &rerr) &&
			(strings.Contains(rerr.Message, "no rollout found") || strings.Contains(rerr.Message, "thread not found")) {
			return "", fmt.Errorf("codex: resume %s: %s: %w", req.SessionID, rerr.Message, runtimes.ErrNoSession)
		}
		return "", fmt.Errorf("codex: %s: %w", method, a.callErr(s, err))
	}
	id := res.Thread.ID
	if err := runtimes.ValidSessionID(id); err != nil {
		return "", fmt.Errorf("codex: %s returned thread id %q: %w", method, id, err)
	}
	if req.Resume && id != req.SessionID {
		return "", fmt.Errorf("codex: thread/resume %s resumed %s", req.SessionID, id)
	}
	if s.model == "" {
		s.model = res.Model
	}
	return id, nil
}

// callErr explains a failed call: a process that exited says so.
func (a *Adapter) callErr(s *session, err error) error {
	if errors.Is(err, stdiorpc.ErrClosed) {
		return fmt.Errorf("%w (%v)", runtimes.ErrExited, err)
	}
	return err
}

// checkHome compares the home Codex reports with the one the rollout store
// reads; they differ only when the environment and config disagree (a
// CODEX_HOME that Config.Home does not reflect), which would hide history.
func (a *Adapter) checkHome(reported string) {
	if reported == "" || canonicalPath(reported) == canonicalPath(a.cfg.Home) {
		return
	}
	a.log.Warn("codex reports another home than the one history is read from; set Config.Home (or CODEX_HOME) to it",
		zap.String("codex_home", reported), zap.String("configured", a.cfg.Home))
}

// wait ends the session once the process is gone: the peer has handled
// every line first, then the running turn fails, prompts are withdrawn and
// ProcessExited comes last.
func (s *session) wait() {
	defer close(s.exitDone)
	<-s.p.Done()
	s.stdout.Close() // EOF to the peer, after every line it was given
	_ = s.peer.Close()
	s.stop.Wait()
	code := s.p.ExitCode()
	reason := s.stop.Reason()
	s.log.Info("codex exited", zap.Int("code", code), zap.String("reason", reason))
	s.turn.Exit(code, reason, fmt.Sprintf("codex exited with code %d during the turn", code))
}

// ID is the thread id.
func (s *session) ID() string { return s.id }

// Done is closed after ProcessExited was delivered.
func (s *session) Done() <-chan struct{} { return s.em.Done() }

// userInput is a turn as turn/start's input items: the text, then each
// image as a localImage (Codex reads the file cdevd keeps and sends the
// model the image itself; the bytes do not cross its stdin twice).
func userInput(t runtimes.Turn) []map[string]any {
	input := []map[string]any{{"type": "text", "text": t.Text(), "text_elements": []any{}}}
	for _, a := range t.Images() {
		input = append(input, map[string]any{"type": "localImage", "path": a.Path})
	}
	return input
}

// Send starts a turn. Codex would merge a second turn/start into the
// running turn, so a send during a turn is refused here (ErrBusy).
func (s *session) Send(ctx context.Context, t runtimes.Turn) error {
	if err := s.turn.Begin(); err != nil {
		return err
	}
	s.awaitCodexTurnEnd(ctx)
	s.mu.Lock()
	s.turnID, s.turnKnown, s.usage = "", make(chan struct{}), rpc.Usage{}
	codexTurn := make(chan struct{})
	s.codexTurn = codexTurn
	s.mu.Unlock()
	params := map[string]any{"threadId": s.id, "input": userInput(t)}
	if err := s.configure(t, params); err != nil {
		s.codexTurnEnded(codexTurn)
		s.turn.Abandon()
		return err
	}
	if s.pol.Plan {
		params["collaborationMode"] = map[string]any{"mode": "plan",
			"settings": map[string]any{"model": s.model, "developer_instructions": nil}}
	}
	// Not the caller's ctx: once written, the turn runs whether or not the
	// caller still waits, and its id must be recorded.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	var res struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if err := s.peer.Call(cctx, "turn/start", params, &res); err != nil {
		s.codexTurnEnded(codexTurn)
		s.turn.Abandon()
		if errors.Is(err, stdiorpc.ErrClosed) {
			return fmt.Errorf("codex: turn/start: %w", runtimes.ErrExited)
		}
		return fmt.Errorf("codex: turn/start: %w", err)
	}
	s.setTurnID(res.Turn.ID)
	return nil
}

// codexTurnWait bounds how long a send waits for Codex to end the previous
// turn: a turn whose end cdevd already delivered, whose turn/completed
// follows within milliseconds (or, given up, once its interrupt is done).
const codexTurnWait = 10 * time.Second

// awaitCodexTurnEnd waits until Codex has ended the previous turn, at most
// codexTurnWait: a turn/start sent before would be merged into that turn
// (0.169.0), and the new turn would never end.
func (s *session) awaitCodexTurnEnd(ctx context.Context) {
	s.mu.Lock()
	prev := s.codexTurn
	s.mu.Unlock()
	if prev == nil {
		return
	}
	t := time.NewTimer(codexTurnWait)
	defer t.Stop()
	select {
	case <-prev:
	case <-s.p.Done():
	case <-ctx.Done():
	case <-t.C:
		s.log.Warn("codex: the previous turn has not ended in Codex; starting the next anyway")
	}
}

// codexTurnEnded marks the end of the turn whose channel is ch, once.
func (s *session) codexTurnEnded(ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch != nil && s.codexTurn == ch {
		close(ch)
		s.codexTurn = nil
	}
}

// setTurnID records the running turn's id (from the turn/start reply or
// turn/started, whichever comes first).
func (s *session) setTurnID(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnID == "" && !s.ended[id] {
		s.turnID = id
		close(s.turnKnown)
	}
}

// Interrupt asks Codex to abandon the running turn: turn/completed with
// status interrupted follows, which ends the turn as interrupted.
func (s *session) Interrupt(ctx context.Context) error {
	running, err := s.turn.Interrupting()
	if err != nil || !running {
		return err
	}
	turnID, err := s.runningTurnID(ctx)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := s.peer.Call(cctx, "turn/interrupt", map[string]string{"threadId": s.id, "turnId": turnID}, nil); err != nil {
		if errors.Is(err, stdiorpc.ErrClosed) {
			return runtimes.ErrExited
		}
		var rerr *stdiorpc.Error
		if errors.As(err, &rerr) && !s.turn.Busy() {
			return nil // the turn ended meanwhile
		}
		return fmt.Errorf("codex: turn/interrupt: %w", err)
	}
	return nil
}

// Close ends the process group (stdin closed, SIGTERM to the group: the Node
// shim alone would orphan the native app-server; SIGKILL after the grace or
// when ctx ends) and returns once ProcessExited was delivered.
func (s *session) Close(ctx context.Context) error {
	return kit.InterruptThenStop(ctx, s.turn, s.stop, s.ending, s.em, s.Interrupt, interruptBeforeStop)
}

// interruptBeforeStop bounds how long a stop waits for Codex to close the
// running turn (7–11 ms measured) before ending the process group.
const interruptBeforeStop = time.Second

// stall is proc's OnStall.
func (s *session) stall() { kit.Stalled(s.turn, s.stop, "codex") }

// oversize is proc's OnOversize.
func (s *session) oversize(size int) { kit.Oversize(s.turn, s.stop, "codex", size) }

// runningTurnID is the running turn's id, once turn/start has answered
// with it: turn/interrupt and turn/steer name the turn they mean.
func (s *session) runningTurnID(ctx context.Context) (string, error) {
	s.mu.Lock()
	known := s.turnKnown
	s.mu.Unlock()
	select {
	case <-known:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-s.peer.Done():
		return "", runtimes.ErrExited
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turnID, nil
}
