package acp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/proc"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// clientVersion is cdevd's clientInfo.version.
const clientVersion = "1"

// callTimeout bounds a request other than session/prompt to a running
// agent, which answers at once when it is alive.
const callTimeout = 30 * time.Second

// interruptBeforeStop bounds how long a stop waits for the agent to end
// the running prompt as cancelled (3-5 ms measured with Gemini) before the
// process group is ended.
const interruptBeforeStop = time.Second

// session is one agent process serving one ACP session.
type session struct {
	a      *Adapter
	id     string
	dir    string
	log    *zap.Logger
	em     *kit.Emitter
	turn   *kit.Turn
	p      *proc.Process
	peer   *stdiorpc.Peer
	stdout *io.PipeWriter
	stop   *kit.Stopper
	// ending is p, with the peer's backlog dropped first: every stop ends
	// through it (kit.DiscardOnStop).
	ending kit.Process

	mu sync.Mutex
	// loading: a session/load replay is under way; its updates are the
	// stored history, which clients read from the transcript, not events.
	loading bool
	msg     *assembly // the agent message being streamed; nil between messages
	// prompts are the permission requests the agent waits on, by the id
	// clients answer.
	prompts map[string]*permission
	// resulted are the tool calls whose tool_result was emitted.
	resulted map[string]bool
	// diffs are the files open tool calls' announcements showed changed,
	// for their results.
	diffs map[string][]rpc.ToolDiff
	// seen is what the transcript held, by message id: a digest of each
	// message already emitted or stored before this process started.
	seen      map[string]string
	turnTexts int // chunks of agent text streamed in this turn
	// promptTried: this turn's prompt was looked for in the transcript.
	promptTried bool
	// images: the agent's initialize said it takes image blocks.
	images bool
	// silence watches the model's silence in the running turn (silence.go).
	silence silenceState
	// replayed is signalled by each update of a session/load replay.
	replayed chan struct{}
	// model and mode are what the agent runs with as cdevd asked ("" its
	// own default): the model from -m or session/set_model, the mode id
	// from session/set_mode (configure.go).
	model, mode string
	// defaultMode is the mode the agent started the session in (what
	// permission mode default switches back to); "" when it did not say.
	defaultMode string
	// reply answers one of the agent's requests: Request.Reply, except in
	// the golden replays, which have no process to write to.
	reply func(r *stdiorpc.Request, result any) error

	exitDone chan struct{}
}

// newSession is a session of a that has no process yet; em delivers its
// events. start gives it one; the golden replays feed it captured lines.
func (a *Adapter) newSession(dir string, em *kit.Emitter) *session {
	return &session{a: a, dir: dir, log: a.log, em: em, turn: kit.NewTurn(em, nil), stop: kit.NewStopper(),
		prompts: map[string]*permission{}, resulted: map[string]bool{}, diffs: map[string][]rpc.ToolDiff{}, seen: map[string]string{}, replayed: make(chan struct{}, 1),
		reply:    func(r *stdiorpc.Request, result any) error { return r.Reply(result) },
		exitDone: make(chan struct{})}
}

// start runs the process and the handshake; on any failure the process is
// gone when it returns.
func (a *Adapter) start(ctx context.Context, req runtimes.StartRequest, args []string, mode string, sink runtimes.Sink) (runtimes.Session, error) {
	began := time.Now()
	pr, pw := io.Pipe()
	s := a.newSession(req.Dir, kit.NewEmitter(sink, a.log))
	s.stdout = pw
	p, err := proc.Start(proc.Config{
		Path: a.spec.Command, Args: args, Dir: req.Dir, Env: a.spec.Env,
		StallTimeout: a.spec.StallTimeout, KillGrace: a.spec.KillGrace,
		OnLine: func(line []byte) {
			if a.tap != nil {
				a.tap(line)
			}
			_, _ = pw.Write(append(line, '\n'))
		},
		OnStderr:   func(line []byte) { a.log.Debug("agent stderr", zap.ByteString("line", line)) },
		OnOversize: func(size int) { kit.Oversize(s.turn, s.stop, a.spec.ID, size) },
		OnStall:    func() { kit.Stalled(s.turn, s.stop, a.spec.ID) },
		Logger:     a.log,
	})
	if err != nil {
		pw.Close()
		pr.Close()
		return nil, fmt.Errorf("%s: %w", a.spec.ID, err)
	}
	s.p = p
	s.turn.SetStaller(p)
	s.peer = stdiorpc.New(pr, p.Stdin(), stdiorpc.Handlers{
		OnRequest:      s.onRequest,
		OnNotification: s.onNotification,
		OnError:        func(err error) { s.log.Warn("agent: skipped a line", zap.Error(err)) },
	}, stdiorpc.Options{Logger: a.log, OrderedReplies: true})
	s.ending = kit.DiscardOnStop(p, func() {
		s.peer.Discard()
		s.em.Release()
	})
	s.stop.Watch(s.ending)
	go s.wait()

	if err := s.handshake(ctx, req, mode); err != nil {
		s.stop.Async("start_failed")
		<-s.exitDone
		return nil, err
	}
	s.log = a.log.With(zap.String("session", s.id))
	s.em.Run()
	s.log.Info("acp agent started", zap.Int("pid", p.Pid()), zap.Bool("resume", req.Resume),
		zap.String("model", req.Model), zap.String("dir", req.Dir), zap.String("mode", mode),
		zap.Duration("start_latency", time.Since(began)))
	return s, nil
}

// agentInfo is what initialize told about the agent.
type agentInfo struct {
	version string
	loads   bool
	images  bool // promptCapabilities.image: the agent takes image blocks
}

// initialize sends ACP's initialize: protocol 1, and no file system or
// terminal offered (the agent uses its own tools, which ask permission).
func initialize(ctx context.Context, peer *stdiorpc.Peer) (agentInfo, error) {
	var res sdk.InitializeResponse
	err := peer.Call(ctx, "initialize", sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{}},
		ClientInfo:         &sdk.Implementation{Name: "cdevd", Title: ptr("cdevd"), Version: clientVersion},
	}, &res)
	if err != nil {
		return agentInfo{}, err
	}
	if res.ProtocolVersion != sdk.ProtocolVersionNumber {
		return agentInfo{}, fmt.Errorf("agent speaks ACP protocol version %d, cdevd %d", res.ProtocolVersion, sdk.ProtocolVersionNumber)
	}
	info := agentInfo{loads: res.AgentCapabilities.LoadSession, images: res.AgentCapabilities.PromptCapabilities.Image}
	if res.AgentInfo != nil {
		info.version = res.AgentInfo.Version
	}
	return info, nil
}

func ptr[T any](v T) *T { return &v }

// handshake initializes the agent and starts or loads the session.
func (s *session) handshake(ctx context.Context, req runtimes.StartRequest, mode string) error {
	a := s.a
	info, err := initialize(ctx, s.peer)
	if err != nil {
		return fmt.Errorf("%s: initialize: %w", a.spec.ID, s.callErr(err))
	}
	a.loads.Store(info.loads)
	s.mu.Lock()
	s.images = info.images
	s.mu.Unlock()
	if req.Resume {
		if !info.loads {
			return fmt.Errorf("%s: resume %s: %w", a.spec.ID, req.SessionID, errNoLoad)
		}
		if err := s.load(ctx, req); err != nil {
			return err
		}
	} else {
		var res sdk.NewSessionResponse
		if err := s.peer.Call(ctx, "session/new", sdk.NewSessionRequest{Cwd: req.Dir, McpServers: []sdk.McpServer{}}, &res); err != nil {
			return fmt.Errorf("%s: session/new: %w", a.spec.ID, s.callErr(err))
		}
		id := string(res.SessionId)
		if err := runtimes.ValidSessionID(id); err != nil {
			return fmt.Errorf("%s: session/new returned session id %q: %w", a.spec.ID, id, err)
		}
		s.mu.Lock()
		s.id = id
		if res.Modes != nil {
			s.defaultMode = string(res.Modes.CurrentModeId)
		}
		s.mu.Unlock()
	}
	if mode != "" {
		if err := s.peer.Call(ctx, "session/set_mode", sdk.SetSessionModeRequest{SessionId: sdk.SessionId(s.id), ModeId: sdk.SessionModeId(mode)}, nil); err != nil {
			return fmt.Errorf("%s: session/set_mode %s: %w", a.spec.ID, mode, s.callErr(err))
		}
	}
	s.mu.Lock()
	s.model, s.mode = req.Model, mode
	s.mu.Unlock()
	s.seed(ctx)
	return nil
}

// load resumes req.SessionID with session/load; its replay is not events.
func (s *session) load(ctx context.Context, req runtimes.StartRequest) error {
	a := s.a
	if a.spec.BeforeLoad != nil {
		if err := a.spec.BeforeLoad(ctx, req.Dir, req.SessionID); err != nil {
			return fmt.Errorf("%s: resume %s: %w", a.spec.ID, req.SessionID, err)
		}
	}
	s.mu.Lock()
	s.id = req.SessionID
	s.loading = true
	s.mu.Unlock()
	err := s.peer.Call(ctx, "session/load", sdk.LoadSessionRequest{SessionId: sdk.SessionId(req.SessionID), Cwd: req.Dir, McpServers: []sdk.McpServer{}}, nil)
	if err == nil {
		s.awaitReplay(ctx)
	}
	s.mu.Lock()
	s.loading = false
	s.mu.Unlock()
	if err != nil {
		var rerr *stdiorpc.Error
		if errors.As(err, &rerr) && a.spec.UnknownSession(rerr) {
			return fmt.Errorf("%s: resume %s: %s: %w", a.spec.ID, req.SessionID, rerr.Error(), runtimes.ErrNoSession)
		}
		return fmt.Errorf("%s: session/load: %w", a.spec.ID, s.callErr(err))
	}
	return nil
}

// Replays may trail the load's reply: Gemini streams the history without
// waiting for it. The replay is over once the agent has been quiet for
// replayQuiet (its updates come back to back), or after replayMax.
const (
	replayQuiet = 150 * time.Millisecond
	replayMax   = 3 * time.Second
)

// awaitReplay waits for the end of a session/load replay.
func (s *session) awaitReplay(ctx context.Context) {
	quiet := time.NewTimer(replayQuiet)
	defer quiet.Stop()
	limit := time.NewTimer(replayMax)
	defer limit.Stop()
	for {
		select {
		case <-s.replayed:
			if !quiet.Stop() {
				<-quiet.C
			}
			quiet.Reset(replayQuiet)
		case <-quiet.C:
			return
		case <-limit.C:
			return
		case <-ctx.Done():
			return
		case <-s.peer.Done():
			return
		}
	}
}

// callErr explains a failed call: a process that exited says so.
func (s *session) callErr(err error) error {
	if errors.Is(err, stdiorpc.ErrClosed) {
		return fmt.Errorf("%w (%v)", runtimes.ErrExited, err)
	}
	return err
}

// probe runs the agent at path just long enough to initialize.
func (a *Adapter) probe(ctx context.Context, path string) (agentInfo, error) {
	pr, pw := io.Pipe()
	p, err := proc.Start(proc.Config{Path: path, Args: a.spec.Args, Env: a.spec.Env,
		OnLine: func(line []byte) { _, _ = pw.Write(append(line, '\n')) }, Logger: a.log})
	if err != nil {
		pw.Close()
		pr.Close()
		return agentInfo{}, err
	}
	peer := stdiorpc.New(pr, p.Stdin(), stdiorpc.Handlers{OnError: func(error) {}}, stdiorpc.Options{Logger: a.log, OrderedReplies: true})
	go func() { <-p.Done(); pw.Close() }()
	info, err := initialize(ctx, peer)
	if err == nil {
		a.loads.Store(info.loads)
	}
	_ = peer.Close() // stdin EOF: an ACP agent exits
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.Stop(sctx)
	return info, err
}

// wait ends the session once the process is gone: the peer has handled
// every line first, then the running turn fails, prompts are withdrawn and
// ProcessExited comes last.
func (s *session) wait() {
	defer close(s.exitDone)
	<-s.p.Done()
	s.stdout.Close()
	_ = s.peer.Close()
	s.stop.Wait()
	s.silenceEnd() // the exit ends the turn
	code := s.p.ExitCode()
	reason := s.stop.Reason()
	s.log.Info("acp agent exited", zap.Int("code", code), zap.String("reason", reason))
	s.turn.Exit(code, reason, fmt.Sprintf("%s exited with code %d during the turn", s.a.spec.ID, code))
}

// ID is the agent's session id.
func (s *session) ID() string { return s.id }

// Done is closed after ProcessExited was delivered.
func (s *session) Done() <-chan struct{} { return s.em.Done() }

// Send starts a turn: session/prompt, whose reply ends it. An ACP agent
// would cancel the running prompt for a second one, so a send during a
// turn is refused here (ErrBusy).
func (s *session) Send(ctx context.Context, t runtimes.Turn) error {
	blocks, err := s.promptBlocks(t)
	if err != nil {
		return err
	}
	if err := s.beginTurn(); err != nil {
		return err
	}
	if err := s.reconfigure(ctx, t); err != nil {
		s.turn.Abandon()
		return err
	}
	pc, err := s.peer.Send("session/prompt",
		sdk.PromptRequest{SessionId: sdk.SessionId(s.id), Prompt: blocks})
	if err != nil {
		s.turn.Abandon()
		return fmt.Errorf("%s: session/prompt: %w", s.a.spec.ID, s.callErr(err))
	}
	// The reply ends the turn, whenever it comes; the process's end ends
	// the wait (every pending call fails then).
	go s.awaitTurn(pc)
	return nil
}

// promptBlocks is the turn as ACP content: its images as image blocks,
// which ACP allows only when the agent's promptCapabilities say image
// (refused otherwise, before the turn begins), then the text.
func (s *session) promptBlocks(t runtimes.Turn) ([]sdk.ContentBlock, error) {
	var blocks []sdk.ContentBlock
	s.mu.Lock()
	images := s.images
	s.mu.Unlock()
	for i, a := range t.Attachments {
		if a.Kind != rpc.AttachImage {
			continue
		}
		if !images {
			return nil, rpc.UnsupportedAttachment(fmt.Sprintf("attachments[%d].kind", i), a.Kind,
				s.a.spec.ID+" (its promptCapabilities)", []rpc.AttachmentKind{rpc.AttachFile})
		}
		blocks = append(blocks, sdk.ImageBlock(base64.StdEncoding.EncodeToString(a.Data), a.MIMEType))
	}
	return append(blocks, sdk.TextBlock(t.Text())), nil
}

// beginTurn marks a turn running, with no message streamed yet.
func (s *session) beginTurn() error {
	if err := s.turn.Begin(); err != nil {
		return err
	}
	s.mu.Lock()
	s.msg, s.turnTexts, s.promptTried = nil, 0, false
	s.mu.Unlock()
	s.silenceBegin()
	return nil
}

// awaitTurn ends the turn with the prompt's reply.
func (s *session) awaitTurn(pc *stdiorpc.Pending) {
	var res sdk.PromptResponse
	err := pc.Wait(context.Background(), &res)
	if errors.Is(err, stdiorpc.ErrClosed) {
		return // the process is gone; its exit fails the turn
	}
	s.endTurn(res, err)
}

// endTurn ends the turn as the prompt's reply (res, or the error it
// carried) says.
func (s *session) endTurn(res sdk.PromptResponse, err error) {
	gaveUp := s.silenceEnd()
	if err != nil {
		s.closeMessage(false)
		s.cancelPrompts()
		failed := promptFailure(s.a.spec.ID, err)
		if s.turn.End(failed) && failed.Code == runtimes.CodeAuthRequired {
			s.reportAuth(failed.Message)
		}
		return
	}
	cancelled := res.StopReason == sdk.StopReasonCancelled
	s.closeMessage(cancelled)
	s.cancelPrompts() // none should be left open once the prompt has its reply
	if cancelled {
		if gaveUp != "" {
			s.turn.End(silenceFailure(gaveUp))
			return
		}
		s.turn.End(runtimes.TurnFailed{Code: runtimes.CodeInterrupted, Message: "interrupted"})
		return
	}
	s.turn.End(runtimes.TurnCompleted{Usage: usageOf(res), StopReason: string(res.StopReason)})
}

// reportAuth is THE place where an ACP turn revealed a login problem
// (auth_required). Hook for the registry (issue 24, item 4): wire the
// "login problem -> flip the runtime's record" call here; for now it logs.
func (s *session) reportAuth(reason string) {
	s.log.Warn("acp: not logged in, or its credentials were refused", zap.String("agent", s.a.spec.ID),
		zap.String("reason", reason))
}

// Interrupt sends session/cancel. A permission request the agent waits on
// is answered cancelled here: the agent does not end the prompt while one
// is open (Gemini), and ACP says the client answers them so.
func (s *session) Interrupt(ctx context.Context) error {
	running, err := s.turn.Interrupting()
	if err != nil || !running {
		return err
	}
	s.silenceEnd() // the user's cancel: the turn ends as interrupted, not given up
	if err := s.peer.Notify("session/cancel", sdk.CancelNotification{SessionId: sdk.SessionId(s.id)}); err != nil {
		if errors.Is(err, stdiorpc.ErrClosed) {
			return runtimes.ErrExited
		}
		return fmt.Errorf("%s: session/cancel: %w", s.a.spec.ID, err)
	}
	s.cancelPrompts()
	return nil
}

// Close ends the process group (stdin closed, SIGTERM to the group, SIGKILL
// after the grace or when ctx ends) and returns once ProcessExited was
// delivered. A running turn is cancelled first, so that it ends as what it
// is.
func (s *session) Close(ctx context.Context) error {
	return kit.InterruptThenStop(ctx, s.turn, s.stop, s.ending, s.em, s.Interrupt, interruptBeforeStop)
}

// usageOf reads a prompt reply's token usage: ACP's (unstable) usage, else
// Gemini's _meta.quota.token_count.
func usageOf(res sdk.PromptResponse) (u rpc.Usage) {
	if res.Usage != nil {
		u.InputTokens, u.OutputTokens = int64(res.Usage.InputTokens), int64(res.Usage.OutputTokens)
		if res.Usage.CachedReadTokens != nil {
			u.CacheReadInputTokens = int64(*res.Usage.CachedReadTokens)
		}
		return u
	}
	raw, err := json.Marshal(res.Meta["quota"])
	if err != nil {
		return u
	}
	var q struct {
		TokenCount struct {
			In  int64 `json:"input_tokens"`
			Out int64 `json:"output_tokens"`
		} `json:"token_count"`
	}
	if json.Unmarshal(raw, &q) == nil {
		u.InputTokens, u.OutputTokens = q.TokenCount.In, q.TokenCount.Out
	}
	return u
}
