package acpfake

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/google/uuid"
)

// agentEnv marks a process started as the fake agent; optionsEnv carries
// its Options as JSON.
const (
	agentEnv   = "CDEVD_ACP_FAKE"
	optionsEnv = "CDEVD_ACP_FAKE_OPTIONS"
)

// Options shape one run of the fake agent.
type Options struct {
	StateDir    string // where sessions are stored (one JSON file per session); required for LoadSession
	LoadSession bool   // advertise agentCapabilities.loadSession and implement session/load
	NoJSONRPC   bool   // omit "jsonrpc":"2.0" from every message it sends (some agents do)
	Name        string // agentInfo.name and title (default "acpfake")
	Version     string // agentInfo.version (default "1.0.0")
}

// IsAgent reports whether this process was started as the fake agent; a
// TestMain then calls Main instead of running the tests.
func IsAgent() bool { return os.Getenv(agentEnv) == "1" }

// Main runs the fake agent on stdin and stdout, then exits the process; it
// never returns.
func Main() {
	os.Exit(run(os.Getenv(optionsEnv), os.Stdin, os.Stdout, os.Stderr))
}

// Env returns the environment entries that make a re-executed test binary
// the fake agent, with o. Append them to os.Environ() (or a test's own
// env): os/exec keeps the last of duplicate entries.
//
// They also set GORACE's atexit_sleep_ms to 0 (keeping any other GORACE
// options): a race-enabled binary otherwise sleeps a second before each
// exit 0, and the fake exits at every end of stdin.
func Env(o Options) []string {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // Options holds only strings and bools
	}
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return []string{agentEnv + "=1", optionsEnv + "=" + string(b), "GORACE=" + gorace}
}

// Exit codes of the fake.
const (
	exitOK    = 0
	exitUsage = 2 // bad Options
	exitCrash = 3 // the CRASH script
)

// run serves the client until stdin ends, SIGTERM arrives or a script
// crashes the agent, and returns the exit code. Prompts still running are
// abandoned: the process exits under them.
func run(optionsJSON string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o Options
	if optionsJSON != "" {
		if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
			fmt.Fprintf(stderr, "acpfake: bad %s: %v\n", optionsEnv, err)
			return exitUsage
		}
	}
	if o.LoadSession && o.StateDir == "" {
		fmt.Fprintln(stderr, "acpfake: LoadSession needs a StateDir to load sessions from")
		return exitUsage
	}
	if o.StateDir != "" && !filepath.IsAbs(o.StateDir) {
		fmt.Fprintf(stderr, "acpfake: StateDir %q is not absolute\n", o.StateDir)
		return exitUsage
	}
	if o.Name == "" {
		o.Name = "acpfake"
	}
	if o.Version == "" {
		o.Version = "1.0.0"
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)

	a := &agent{
		ctx:      ctx,
		opts:     o,
		out:      &wire{w: stdout, noJSONRPC: o.NoJSONRPC},
		stderr:   stderr,
		exit:     make(chan int, 1),
		sessions: map[string]*session{},
		waiting:  map[int]chan inbound{},
	}
	lines := make(chan []byte)
	eof := make(chan struct{})
	go readLines(ctx, stdin, lines, eof)
	go a.serve(lines)

	select {
	case <-eof:
		// Like gemini --acp: the end of input ends the agent at once, even
		// mid-prompt.
		return exitOK
	case <-term:
		return exitOK
	case code := <-a.exit:
		return code
	}
}

// readLines hands each stdin line to serve (in order) and closes eof when
// stdin ends or fails.
func readLines(ctx context.Context, r io.Reader, lines chan<- []byte, eof chan<- struct{}) {
	defer close(eof)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// agent is the fake's state, shared by the dispatcher and running prompts.
type agent struct {
	ctx    context.Context // ends when run returns
	opts   Options
	out    *wire
	stderr io.Writer
	exit   chan int // a script asks the process to exit with this code

	mu          sync.Mutex
	sessions    map[string]*session
	nextRequest int                  // ids of the agent's own requests: from 0, like Gemini
	waiting     map[int]chan inbound // agent requests waiting for the client's response
	nextTool    int                  // numbers tool call ids
}

// serve dispatches lines one at a time, in order. Prompts run in their own
// goroutines, so that a cancel or a permission answer is read while a
// prompt runs.
func (a *agent) serve(lines <-chan []byte) {
	for {
		select {
		case line := <-lines:
			a.dispatch(line)
		case <-a.ctx.Done():
			return
		}
	}
}

func (a *agent) dispatch(line []byte) {
	var m inbound
	if err := json.Unmarshal(line, &m); err != nil {
		a.out.fail(json.RawMessage("null"), &rpcError{Code: codeParseError, Message: "Parse error: " + err.Error()})
		return
	}
	if m.isResponse() {
		a.answered(m)
		return
	}
	if len(m.ID) == 0 {
		// Notifications: only session/cancel means something; others are
		// ignored, as JSON-RPC asks.
		if m.Method == "session/cancel" {
			a.cancel(m.Params)
		}
		return
	}
	switch m.Method {
	case "initialize":
		a.initialize(m.ID, m.Params)
	case "session/new":
		a.newSession(m.ID, m.Params)
	case "session/load":
		if !a.opts.LoadSession {
			a.methodNotFound(m.ID, m.Method)
			return
		}
		a.loadSession(m.ID, m.Params)
	case "session/set_mode":
		a.setMode(m.ID, m.Params)
	case "session/prompt":
		a.prompt(m.ID, m.Params)
	default:
		a.methodNotFound(m.ID, m.Method)
	}
}

func (a *agent) methodNotFound(id json.RawMessage, method string) {
	// Gemini's wording: "\"Method not found\": session/list".
	a.out.fail(id, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("%q: %s", "Method not found", method)})
}

// decode reads params into v; a failure is the request's -32602.
func decode(params json.RawMessage, v any) *rpcError {
	if len(params) == 0 || string(params) == "null" {
		return invalidParams("Invalid params: missing")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("Invalid params: " + err.Error())
	}
	return nil
}

type agentInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

type agentCapabilities struct {
	LoadSession        bool     `json:"loadSession"`
	PromptCapabilities struct{} `json:"promptCapabilities"`
}

type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentInfo         agentInfo         `json:"agentInfo"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AuthMethods       []struct{}        `json:"authMethods"`
}

// protocolVersion is the one ACP version the fake speaks, whatever the
// client asks for (Gemini answers 2 with 1 too).
const protocolVersion = 1

func (a *agent) initialize(id, params json.RawMessage) {
	var p initializeParams
	if err := decode(params, &p); err != nil {
		a.out.fail(id, err)
		return
	}
	a.out.reply(id, initializeResult{
		ProtocolVersion:   protocolVersion,
		AgentInfo:         agentInfo{Name: a.opts.Name, Title: a.opts.Name, Version: a.opts.Version},
		AgentCapabilities: agentCapabilities{LoadSession: a.opts.LoadSession},
		AuthMethods:       []struct{}{},
	})
}

func (a *agent) newSession(id, params json.RawMessage) {
	var p newSessionParams
	if err := decode(params, &p); err != nil {
		a.out.fail(id, err)
		return
	}
	if !filepath.IsAbs(p.Cwd) {
		a.out.fail(id, invalidParams(fmt.Sprintf("Invalid params: cwd %q is not an absolute path", p.Cwd)))
		return
	}
	s := newSession(uuid.NewString(), p.Cwd, nil)
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	a.out.reply(id, sessionResult{SessionID: s.id, Modes: sessionModes{AvailableModes: modes, CurrentModeID: modeDefault}})
}

func (a *agent) setMode(id, params json.RawMessage) {
	var p setModeParams
	if err := decode(params, &p); err != nil {
		a.out.fail(id, err)
		return
	}
	if p.ModeID != modeDefault && p.ModeID != modeYolo {
		a.out.fail(id, invalidParams(fmt.Sprintf("Invalid params: unknown mode %q (default, yolo)", p.ModeID)))
		return
	}
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	if s != nil {
		s.mode = p.ModeID
	}
	a.mu.Unlock()
	if s == nil {
		a.out.fail(id, sessionNotFound(p.SessionID))
		return
	}
	a.out.reply(id, struct{}{})
}

func sessionNotFound(id string) *rpcError {
	return invalidParams("Session not found: " + id)
}

// answered hands the client's response to the request waiting for it.
func (a *agent) answered(m inbound) {
	var id int
	if err := json.Unmarshal(m.ID, &id); err != nil {
		fmt.Fprintf(a.stderr, "acpfake: a response with id %s, which the agent never sent\n", m.ID)
		return
	}
	a.mu.Lock()
	ch := a.waiting[id]
	delete(a.waiting, id)
	a.mu.Unlock()
	if ch == nil {
		fmt.Fprintf(a.stderr, "acpfake: a response to request %d, which is not waiting\n", id)
		return
	}
	ch <- m // buffered: one response per request
}

// request sends the agent's own request and returns the channel its
// response arrives on.
func (a *agent) request(method string, params any) <-chan inbound {
	ch := make(chan inbound, 1)
	a.mu.Lock()
	id := a.nextRequest
	a.nextRequest++
	a.waiting[id] = ch
	a.mu.Unlock()
	a.out.send(outbound{ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: params})
	return ch
}

// exitWith makes run return code; the caller then waits for the end.
func (a *agent) exitWith(code int) {
	select {
	case a.exit <- code:
	default: // another script asked first
	}
	<-a.ctx.Done()
}

var errCancelled = errors.New("cancelled")
