package contracttests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// BenchmarkAttachImage measures a 5 MB image sent inline with session/send
// to a warm Claude session (the real CLI, the fake API): from the client's
// first byte of the frame to session/send's answer, which cdevd gives once
// the turn is written to the CLI's stdin (send-ms), and to the fake API's
// receiving the image (api-ms); beside the same turn written by hand to a
// bare `claude -p --input-format stream-json` (bare-write-ms, bare-api-ms).
func BenchmarkAttachImage(b *testing.B) {
	if _, _, ok := external(); ok {
		b.Skipf("needs cdevd in process; %s targets an external server", envURL)
	}
	img := testimage.PNG(42, 1120, 1120) // noise: about 5 MB as PNG
	arrived := make(chan time.Time, 1)
	var sameBytes bool
	fake := fakeanthropic.New(b)
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		// The CLI may shrink a large image before sending it: any image
		// of this prompt counts as its arrival.
		if ims := req.Images(); len(ims) > 0 && strings.HasPrefix(req.LastUserText(), "what is it?") {
			sameBytes = bytes.Equal(ims[len(ims)-1].Data, img)
			select {
			case arrived <- time.Now():
			default:
			}
			return fakeanthropic.Text("seen")
		}
		return fakeanthropic.Echo(req)
	})
	await := func() time.Time {
		select {
		case at := <-arrived:
			return at
		case <-time.After(claudetest.Timeout):
			b.Fatal("the image never reached the fake API")
			return time.Time{}
		}
	}
	bin, env := claudetest.Bin(b), claudetest.Env(b, fake.URL())
	d := StartDaemon(b, daemon.Config{Home: b.TempDir(), Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: bin, Env: env, KillGrace: 2 * time.Second})}})
	ctx := clitestContext(b)
	dir, _ := filepath.EvalSymlinks(b.TempDir())

	ws := benchDial(b, ctx, d.URL(), d.Token())
	defer ws.Close()
	next := 1
	call := func(method string, params any) json.RawMessage {
		next++
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": next, "method": method, "params": params})
		if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
			b.Fatal(err)
		}
		return awaitFrame(b, ws, func(m frameMsg) bool { return m.ID == next }).Result
	}
	turnEnd := func(id string) {
		awaitFrame(b, ws, func(m frameMsg) bool {
			return m.Method == rpc.EventPrefix+rpc.EventTurnCompleted && strings.Contains(string(m.Params), id)
		})
	}
	roundTrip(b, ws, []byte(initializeFrame))
	var w rpc.Workspace
	json.Unmarshal(call(rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}), &w)
	var started rpc.SessionStartResult
	json.Unmarshal(call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID, Prompt: "warm up"}), &started)
	turnEnd(started.SessionID)

	bare := startBareClaude(b, ctx, bin, env, dir)
	bare.turn(b, "warm up", nil)

	var send, api, bareWrite, bareAPI time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		call(rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: started.SessionID, AgentType: claude.ID, Prompt: "what is it?",
			Attachments: []rpc.Attachment{{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString(img)}}})
		send += time.Since(t0)
		api += await().Sub(t0)
		turnEnd(started.SessionID)

		t0 = time.Now()
		written := bare.turn(b, "what is it?", img)
		bareWrite += written.Sub(t0)
		bareAPI += await().Sub(t0)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(len(img))/1e6, "image-MB")
	if !sameBytes {
		b.Logf("the CLI re-encoded the %d-byte image before sending it", len(img))
	}
	b.ReportMetric(float64(send.Milliseconds())/n, "send-ms/op")
	b.ReportMetric(float64(api.Milliseconds())/n, "api-ms/op")
	b.ReportMetric(float64(bareWrite.Milliseconds())/n, "bare-write-ms/op")
	b.ReportMetric(float64(bareAPI.Milliseconds())/n, "bare-api-ms/op")
}

func clitestContext(b *testing.B) context.Context { return claudetest.Context(b) }

// frameMsg is what the benchmark reads of a frame.
type frameMsg struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpc.Error      `json:"error"`
}

// awaitFrame reads frames until one matches; an error reply fails.
func awaitFrame(b *testing.B, ws *websocket.Conn, match func(frameMsg) bool) frameMsg {
	b.Helper()
	for {
		_, raw, err := ws.ReadMessage()
		if err != nil {
			b.Fatal(err)
		}
		var m frameMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
		if m.Error != nil {
			b.Fatalf("error reply: %v", m.Error)
		}
		if match(m) {
			return m
		}
	}
}

// bareClaude is the CLI run by hand as cdevd runs it, without cdevd.
type bareClaude struct {
	stdin  *bufio.Writer
	flush  func() error
	stdout *bufio.Scanner
}

func startBareClaude(b *testing.B, ctx context.Context, bin string, env []string, dir string) *bareClaude {
	cmd := exec.CommandContext(ctx, bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--session-id="+uuid.NewString())
	cmd.Env, cmd.Dir = env, dir
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	w := bufio.NewWriterSize(in, 1<<20)
	return &bareClaude{stdin: w, flush: w.Flush, stdout: sc}
}

// turn writes one user line (with img as an image block when set), returns
// when it was written, and reads the CLI's output until the turn's result.
func (c *bareClaude) turn(b *testing.B, prompt string, img []byte) time.Time {
	content := []any{}
	if img != nil {
		content = append(content, map[string]any{"type": "image", "source": map[string]string{
			"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}})
	}
	content = append(content, map[string]string{"type": "text", "text": prompt})
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	c.stdin.Write(append(line, '\n'))
	if err := c.flush(); err != nil {
		b.Fatal(err)
	}
	written := time.Now()
	for c.stdout.Scan() {
		if bytes.Contains(c.stdout.Bytes(), []byte(`"type":"result"`)) {
			return written
		}
	}
	b.Fatalf("the bare CLI ended before its result: %v", c.stdout.Err())
	return written
}
