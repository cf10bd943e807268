package acp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/internal/fakegemini"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client is the client side the SDK calls: it records updates in arrival
// order, and answers permission requests with what the test hands it.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	asked   chan sdk.RequestPermissionRequest
	answer  chan sdk.RequestPermissionResponse
}

var errUnsupported = errors.New("not offered by this client")

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
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

// text is the agent message text received so far.
func (c *client) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, u := range c.updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// The SDK's client connection drives the real gemini --acp: a text turn
// whose chunks have all arrived when the prompt's reply does, and a
// permission request (the agent's id 0) held until answered, then run.
func TestSDKAgainstGemini(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(r fakegemini.Request) fakegemini.Reply {
		if _, ok := r.FunctionResponse(); ok {
			return fakegemini.Text("done")
		}
		if cmd, ok := strings.CutPrefix(r.LastUserText(), "RUN "); ok {
			return fakegemini.Shell(cmd)
		}
		return fakegemini.Echo(r)
	})
	env := geminitest.Env(t, api.URL())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(geminitest.Bin(t), "--acp")
	cmd.Env, cmd.Dir = env, ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close() // EOF ends the CLI
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Error("gemini did not exit at the end of its input")
		}
	})

	c := &client{asked: make(chan sdk.RequestPermissionRequest, 4), answer: make(chan sdk.RequestPermissionResponse, 1)}
	conn := sdk.NewClientSideConnection(c, stdin, stdout)
	ctx := geminitest.Context(t)
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "cdevd", Version: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession {
		t.Error("gemini does not advertise loadSession")
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}

	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	// The reply waits for the notifications before it: the whole answer is here.
	if resp.StopReason != sdk.StopReasonEndTurn || c.text() != "echo: hello" {
		t.Fatalf("turn ended %q with text %q", resp.StopReason, c.text())
	}

	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId,
			Prompt: []sdk.ContentBlock{sdk.TextBlock("RUN touch made_by_gemini.txt")}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var asked sdk.RequestPermissionRequest
	select {
	case asked = <-c.asked:
	case <-ctx.Done():
		t.Fatal("no permission request")
	}
	once := sdk.PermissionOptionId("")
	for _, o := range asked.Options {
		if o.Kind == sdk.PermissionOptionKindAllowOnce {
			once = o.OptionId
		}
	}
	if once == "" {
		t.Fatalf("no allow-once option in %+v", asked.Options)
	}
	if _, err := os.Stat(filepath.Join(ws, "made_by_gemini.txt")); err == nil {
		t.Fatal("the command ran before it was allowed")
	}
	c.answer <- sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: once, Outcome: "selected"}}}
	select {
	case r := <-done:
		if r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("turn after the permission ended %q", r.StopReason)
		}
	case <-ctx.Done():
		t.Fatal("the turn after the permission never ended")
	}
	if _, err := os.Stat(filepath.Join(ws, "made_by_gemini.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	if !strings.HasSuffix(c.text(), "done") {
		t.Fatalf("the answer after the tool is missing: %q", c.text())
	}
}
