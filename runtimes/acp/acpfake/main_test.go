package acpfake

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if IsAgent() {
		Main()
		return
	}
	goleak.VerifyTestMain(m)
}

// deadline bounds every wait; reaching it is a failure, never a result.
const deadline = 10 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// agentProc is this test binary running as the fake agent, on pipes that
// the test owns (no goroutines of os/exec to outlive it).
type agentProc struct {
	cmd    *exec.Cmd
	stdin  *os.File // the agent's stdin, written by the test
	stdout *os.File // the agent's stdout, read by the test
	stderr string   // file the agent's stderr goes to
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// startAgent starts the fake with o. When the test ends its stdin is
// closed and it must exit by itself.
func startAgent(t *testing.T, o Options) *agentProc {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errPath := t.TempDir() + "/stderr"
	errF, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), Env(o)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errF
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child has its copies; the parent's would hide EOF.
	inR.Close()
	outW.Close()
	errF.Close()
	p := &agentProc{cmd: cmd, stdin: inW, stdout: outR, stderr: errPath, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(deadline):
			_ = cmd.Process.Kill()
			<-p.exited
			t.Error("the fake agent did not exit at the end of its input")
		}
		p.stdout.Close()
	})
	return p
}

// exitCode waits for the agent to exit and returns its exit code.
func (p *agentProc) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(deadline):
		t.Fatal("the fake agent did not exit")
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("wait: %v", p.err)
	}
	return 0
}

func (p *agentProc) stderrText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.stderr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// raw drives the agent line by line, for what the SDK hides: ids, the
// jsonrpc member, the order of replies, and broken lines.
type raw struct {
	*agentProc
	lines chan []byte // stdout lines, closed at EOF
}

func startRaw(t *testing.T, o Options) *raw {
	t.Helper()
	r := &raw{agentProc: startAgent(t, o), lines: make(chan []byte, 100000)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(r.lines)
		br := bufio.NewReader(r.stdout)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				r.lines <- l
			}
			if err != nil {
				return
			}
		}
	}()
	// Runs before startAgent's cleanup (LIFO): end the agent, then the reader.
	t.Cleanup(func() {
		r.stdin.Close()
		select {
		case <-read:
		case <-time.After(deadline):
			t.Error("stdout never ended")
		}
	})
	return r
}

func (r *raw) write(t *testing.T, line string) {
	t.Helper()
	if _, err := r.stdin.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// call sends a request (a notification when id is nil).
func (r *raw) call(t *testing.T, id any, method string, params any) {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != nil {
		m["id"] = id
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	r.write(t, string(b))
}

// msg is one line from the agent.
type msg struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	line string
}

// nextLine returns the next stdout line as it is.
func (r *raw) nextLine(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatal("stdout ended")
		}
		return strings.TrimSuffix(string(l), "\n")
	case <-time.After(deadline):
		t.Fatal("timed out waiting for a line")
	}
	return ""
}

// next returns the next line, which must be JSON.
func (r *raw) next(t *testing.T) msg {
	t.Helper()
	l := r.nextLine(t)
	var m msg
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		t.Fatalf("line %q: %v", l, err)
	}
	m.line = l
	return m
}

// quietWindow is how long quiet listens. That nothing is sent can only be
// checked over a window; a fake that reacts at all does so within
// milliseconds; the window costs a passing test 200 ms.
const quietWindow = 200 * time.Millisecond

// quiet fails the test if the agent writes a line within quietWindow.
func (r *raw) quiet(t *testing.T) {
	t.Helper()
	select {
	case l := <-r.lines:
		t.Fatalf("unexpected line %s", l)
	case <-time.After(quietWindow):
	}
}

// reply reads lines up to the reply to id and returns them, the reply last.
func (r *raw) reply(t *testing.T, id int) []msg {
	t.Helper()
	var got []msg
	for {
		m := r.next(t)
		got = append(got, m)
		if m.Method == "" && string(m.ID) == fmt.Sprint(id) {
			return got
		}
	}
}

// describe is a line in short: "update <kind> <text>", "reply <id> <result>",
// "error <id> <code> <message>", "request <id> <method>".
func (m msg) describe() string {
	switch {
	case m.Method == "session/update":
		var p struct {
			Update struct {
				Kind    string `json:"sessionUpdate"`
				Status  string `json:"status"`
				Content json.RawMessage
			} `json:"update"`
		}
		_ = json.Unmarshal(m.Params, &p)
		var c struct{ Text string }
		_ = json.Unmarshal(p.Update.Content, &c)
		if p.Update.Status != "" {
			return "update " + p.Update.Kind + " " + p.Update.Status
		}
		return "update " + p.Update.Kind + " " + c.Text
	case m.Method != "" && len(m.ID) > 0:
		return fmt.Sprintf("request %s %s", m.ID, m.Method)
	case m.Error != nil:
		return fmt.Sprintf("error %s %d %s", m.ID, m.Error.Code, m.Error.Message)
	default:
		return fmt.Sprintf("reply %s %s", m.ID, m.Result)
	}
}

func describeAll(ms []msg) []string {
	var d []string
	for _, m := range ms {
		d = append(d, m.describe())
	}
	return d
}

// session starts a raw session in dir after initialize (id 1, session/new
// id 2) and returns its id.
func (r *raw) session(t *testing.T, dir string) string {
	t.Helper()
	r.call(t, 1, "initialize", map[string]any{"protocolVersion": 1})
	r.reply(t, 1)
	r.call(t, 2, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	ms := r.reply(t, 2)
	var res struct{ SessionID string }
	if err := json.Unmarshal(ms[len(ms)-1].Result, &res); err != nil || res.SessionID == "" {
		t.Fatalf("session/new: %s", ms[len(ms)-1].line)
	}
	return res.SessionID
}

func (r *raw) prompt(t *testing.T, id int, session, text string) {
	t.Helper()
	r.call(t, id, "session/prompt", map[string]any{"sessionId": session,
		"prompt": []map[string]string{{"type": "text", "text": text}}})
}

// client is the SDK's client side: it records updates and hands permission
// requests to the test, which answers them.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	updated chan sdk.SessionUpdate
	asked   chan sdk.RequestPermissionRequest
	answer  chan sdk.RequestPermissionResponse
}

var errUnsupported = errors.New("not offered by this client")

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	select {
	case c.updated <- n.Update:
	default: // nobody is waiting for this one
	}
	return nil
}

func (c *client) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.asked <- r
	select {
	case a := <-c.answer:
		return a, nil
	case <-ctx.Done():
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
}

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errUnsupported
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errUnsupported
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errUnsupported
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errUnsupported
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errUnsupported
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errUnsupported
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errUnsupported
}

// take returns the updates received so far and forgets them.
func (c *client) take() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

// describeUpdates is updates in short, like msg.describe.
func describeUpdates(us []sdk.SessionUpdate) []string {
	var d []string
	for _, u := range us {
		switch {
		case u.AgentMessageChunk != nil:
			d = append(d, "agent "+blockText(u.AgentMessageChunk.Content))
		case u.AgentThoughtChunk != nil:
			d = append(d, "thought "+blockText(u.AgentThoughtChunk.Content))
		case u.UserMessageChunk != nil:
			d = append(d, "user "+blockText(u.UserMessageChunk.Content))
		case u.ToolCall != nil:
			d = append(d, fmt.Sprintf("tool_call %s %s %s", u.ToolCall.Kind, u.ToolCall.Status, u.ToolCall.Title))
		case u.ToolCallUpdate != nil:
			s := ""
			if u.ToolCallUpdate.Status != nil {
				s = string(*u.ToolCallUpdate.Status)
			}
			var out []string
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil {
					out = append(out, blockText(c.Content.Content))
				}
			}
			d = append(d, fmt.Sprintf("tool_call_update %s %s", s, strings.Join(out, "|")))
		default:
			d = append(d, "other")
		}
	}
	return d
}

func blockText(b sdk.ContentBlock) string {
	if b.Text == nil {
		return "<not text>"
	}
	return b.Text.Text
}

// sdkAgent is the fake driven by the SDK's client connection.
type sdkAgent struct {
	*agentProc
	conn *sdk.ClientSideConnection
	c    *client
	ctx  context.Context
}

func startSDK(t *testing.T, o Options) *sdkAgent {
	t.Helper()
	p := startAgent(t, o)
	c := &client{updated: make(chan sdk.SessionUpdate, 1000), asked: make(chan sdk.RequestPermissionRequest, 4),
		answer: make(chan sdk.RequestPermissionResponse, 1)}
	conn := sdk.NewClientSideConnection(c, p.stdin, p.stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler)) // it logs "connection closed" to the default logger
	// Runs before startAgent's cleanup: the agent exits at EOF, the SDK's
	// reader sees it and the connection's goroutines end.
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-conn.Done():
		case <-time.After(deadline):
			t.Error("the SDK connection did not end with the agent")
		}
	})
	return &sdkAgent{agentProc: p, conn: conn, c: c, ctx: testContext(t)}
}

// session initializes and starts a session in dir.
func (a *sdkAgent) session(t *testing.T, dir string) (sdk.InitializeResponse, sdk.NewSessionResponse) {
	t.Helper()
	init, err := a.conn.Initialize(a.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "acpfake-test", Version: "0"}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	s, err := a.conn.NewSession(a.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return init, s
}

func (a *sdkAgent) prompt(id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return a.conn.Prompt(a.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// promptAsync runs a prompt in the background; its result arrives on the
// channel.
func (a *sdkAgent) promptAsync(id sdk.SessionId, text string) <-chan promptDone {
	ch := make(chan promptDone, 1)
	go func() {
		r, err := a.prompt(id, text)
		ch <- promptDone{r, err}
	}()
	return ch
}

type promptDone struct {
	resp sdk.PromptResponse
	err  error
}

func (a *sdkAgent) awaitAsked(t *testing.T) sdk.RequestPermissionRequest {
	t.Helper()
	select {
	case r := <-a.c.asked:
		return r
	case <-a.ctx.Done():
		t.Fatal("no permission request")
	}
	return sdk.RequestPermissionRequest{}
}

func (a *sdkAgent) awaitResult(t *testing.T, ch <-chan promptDone) promptDone {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-a.ctx.Done():
		t.Fatal("the prompt never replied")
	}
	return promptDone{}
}

func selected(id string) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id), Outcome: "selected"}}}
}

func cancelledOutcome() sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}
}
