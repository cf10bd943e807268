package bench

// The agent figures (agentfigures.go) run the real Claude Code CLI against
// a fake Anthropic API served by the bench process itself, so that the
// moment a model request arrives is read on the bench's own clock: through
// a second `cdevd serve`, and bare, driven by hand on its stdin as cdevd
// drives it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// agentWait bounds one wait on the CLI or the fake: Claude Code retries a
// failing API for minutes, and a figure must fail rather than hang.
const agentWait = 2 * time.Minute

// agentFixture is the fake API, the model playing it, and a `cdevd serve`
// whose Claude Code talks to it; made on first use, ended by closeAgent.
type agentFixture struct {
	api   *fakeanthropic.Server
	model *heldModel
	serve *proc
	bin   string   // the claude CLI
	env   []string // the CLI's environment, as cdevd serve passes it on
	dir   string   // the workspace of cdevd's sessions
	bare  string   // the folder the bare CLI runs in
	seq   int      // numbers the prompts, each unique in a run
}

// ensureAgent starts the agent fixture on first use.
func (b *Bench) ensureAgent() (*agentFixture, error) {
	if b.fix.agent != nil {
		return b.fix.agent, nil
	}
	bin := ""
	for _, info := range b.opts.Runtimes {
		if info.ID == claude.ID {
			bin = b.opts.CLIs[info.CLI.BinEnv]
		}
	}
	if bin == "" {
		return nil, errors.New("no Claude Code CLI: the agent figures run it")
	}
	f := &agentFixture{model: newHeldModel(), bin: bin, dir: b.path("ws", "agent"), bare: b.path("ws", "agent-bare")}
	f.api = fakeanthropic.Serve()
	f.api.Respond(f.model.respond)
	b.fix.agent = f // closed by closeAgent, even when half made
	home, tmp := b.path("agent-home"), b.path("agent-tmp")
	for _, d := range []string{home, tmp, f.dir, f.bare} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	closed, err := closedAddr()
	if err != nil {
		return nil, err
	}
	// The bench's environment without any Anthropic credential of the
	// user's, then what points the CLI at the fake, and proxies at a
	// closed port: nothing leaves loopback.
	var env []string
	for _, kv := range b.childEnv() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "ANTHROPIC_") && !strings.HasPrefix(k, "CLAUDE_") &&
			!strings.HasSuffix(strings.ToUpper(k), "_PROXY") {
			env = append(env, kv)
		}
	}
	proxy := "http://" + closed
	env = append(env, "HOME="+home, "TMPDIR="+tmp, "HTTPS_PROXY="+proxy, "HTTP_PROXY="+proxy, "https_proxy="+proxy,
		"http_proxy="+proxy, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	f.env = claudetest.Point(env, f.api.URL(), "bench")
	serveEnv := append(append([]string{}, f.env...), "CDEVD_HOME="+b.path("agent-cdevd"), "CDEVD_TOKEN="+b.token, "CLAUDE_BIN="+bin)
	if err := os.MkdirAll(b.path("agent-cdevd"), 0o700); err != nil {
		return nil, err
	}
	if f.serve, err = b.start(serveEnv, b.path("agent-serve.log"), "serve", "--addr", "127.0.0.1:0", "--log-level", "info"); err != nil {
		return nil, err
	}
	f.serve.token, f.serve.term = b.token, true
	return f, nil
}

// closeAgent ends the agent fixture: its daemon (which ends its CLIs),
// then the held requests, then the fake.
func (b *Bench) closeAgent() error {
	f := b.fix.agent
	if f == nil {
		return nil
	}
	b.fix.agent = nil
	err := f.serve.stop()
	f.model.close()
	f.api.Close()
	return err
}

// prompt is a prompt no other in the run has, starting with kind.
func (f *agentFixture) prompt(kind string) string {
	f.seq++
	return fmt.Sprintf("%s %d", kind, f.seq)
}

// closedAddr is a loopback address nothing listens on.
func closedAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// heldModel plays the model: it notes when each prompt's first request
// arrives (and whether it carried an image), holds the requests of
// prompts starting "hold" until released, and answers "ok".
type heldModel struct {
	mu      sync.Mutex
	arrived map[string]chan struct{} // closed at the prompt's first request
	at      map[string]time.Time
	images  map[string]int
	gates   map[string]chan struct{}
	done    chan struct{} // closed at the end: nothing holds any more
}

func newHeldModel() *heldModel {
	return &heldModel{arrived: map[string]chan struct{}{}, at: map[string]time.Time{}, images: map[string]int{},
		gates: map[string]chan struct{}{}, done: make(chan struct{})}
}

func (m *heldModel) chans(prompt string) (arrived, gate chan struct{}) {
	if m.arrived[prompt] == nil {
		m.arrived[prompt], m.gates[prompt] = make(chan struct{}), make(chan struct{})
	}
	return m.arrived[prompt], m.gates[prompt]
}

func (m *heldModel) respond(req fakeanthropic.Request) fakeanthropic.Reply {
	now := time.Now()
	if !req.HasTool("Bash") {
		return fakeanthropic.Echo(req) // the CLI's side requests (titles)
	}
	p := req.LastUserText()
	m.mu.Lock()
	arrived, gate := m.chans(p)
	if _, seen := m.at[p]; !seen {
		m.at[p], m.images[p] = now, len(req.Images())
		close(arrived)
	}
	m.mu.Unlock()
	if strings.HasPrefix(p, "hold") {
		select {
		case <-gate:
		case <-m.done:
		}
	}
	return fakeanthropic.Text("ok")
}

// arrival waits for prompt's first request and gives its time and the
// images it carried.
func (m *heldModel) arrival(ctx context.Context, prompt string) (time.Time, int, error) {
	m.mu.Lock()
	arrived, _ := m.chans(prompt)
	m.mu.Unlock()
	t := time.NewTimer(agentWait)
	defer t.Stop()
	select {
	case <-arrived:
	case <-t.C:
		return time.Time{}, 0, fmt.Errorf("the model API never received %q", prompt)
	case <-ctx.Done():
		return time.Time{}, 0, ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.at[prompt], m.images[prompt], nil
}

// release lets the held request of prompt answer, and says when.
func (m *heldModel) release(prompt string) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, gate := m.chans(prompt)
	now := time.Now()
	close(gate)
	return now
}

func (m *heldModel) close() { close(m.done) }

// bareClaude is the CLI run by hand, with the flags cdevd runs it with
// but the permission tool (nothing here asks), without cdevd.
type bareClaude struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func (f *agentFixture) startBare() (*bareClaude, error) {
	cmd := exec.Command(f.bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--include-partial-messages", "--replay-user-messages", "--session-id="+uuid.NewString())
	cmd.Env, cmd.Dir = f.env, f.bare
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20) // a replayed 5 MB image is one line
	return &bareClaude{cmd: cmd, stdin: in, out: sc}, nil
}

// write writes one line to the CLI's stdin.
func (c *bareClaude) write(line []byte) error {
	_, err := c.stdin.Write(line)
	return err
}

// result reads the CLI's output up to its turn's result line.
func (c *bareClaude) result() error {
	for c.out.Scan() {
		if bytes.Contains(c.out.Bytes(), []byte(`"type":"result"`)) {
			return nil
		}
	}
	return fmt.Errorf("the bare CLI ended before its result: %v", c.out.Err())
}

// turn writes prompt and reads up to its result.
func (c *bareClaude) turn(prompt string) error {
	if err := c.write(userLine(prompt, nil)); err != nil {
		return err
	}
	return c.result()
}

// close ends the CLI as cdevd's stop does for a session at rest: its
// stdin closes, and it exits.
func (c *bareClaude) close() error {
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
		return errors.New("the bare CLI did not exit within 10 s of its stdin's end; killed")
	}
}

// userLine is a stream-json user message: the prompt, after img as an
// image block when img is not nil.
func userLine(prompt string, img []byte) []byte {
	content := []any{}
	if img != nil {
		content = append(content, map[string]any{"type": "image", "source": map[string]string{
			"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}})
	}
	content = append(content, map[string]string{"type": "text", "text": prompt})
	line, err := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	if err != nil {
		panic(err) // the bench's own values
	}
	return append(line, '\n')
}
