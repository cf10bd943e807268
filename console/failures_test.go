package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/sessions"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// cutter is a TCP relay between the page and cdevd that the test can cut:
// cut closes every relayed connection (both ends, so cdevd loses the
// page's WebSocket as it would on a network drop) and holds new ones
// unanswered until mend. Holding is what makes "events happen while the
// page is away" certain rather than a race with the page's reconnect.
type cutter struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	held chan struct{} // receives when a connection is first held after a cut

	mu      sync.Mutex
	holding bool
	queue   []net.Conn
	live    map[net.Conn]struct{}
}

func newCutter(t *testing.T, target string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, target: target, held: make(chan struct{}, 1), live: map[net.Conn]struct{}{}}
	c.wg.Add(1)
	go c.accept()
	t.Cleanup(c.close)
	return c
}

func (c *cutter) Addr() string { return c.ln.Addr().String() }

func (c *cutter) accept() {
	defer c.wg.Done()
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		if c.holding {
			c.queue = append(c.queue, in)
			select {
			case c.held <- struct{}{}:
			default:
			}
		} else {
			c.relay(in)
		}
		c.mu.Unlock()
	}
}

// relay forwards in to the target; c.mu is held.
func (c *cutter) relay(in net.Conn) {
	out, err := net.Dial("tcp", c.target)
	if err != nil {
		in.Close()
		return
	}
	c.live[in], c.live[out] = struct{}{}, struct{}{}
	pipe := func(dst, src net.Conn) {
		defer c.wg.Done()
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
		c.mu.Lock()
		delete(c.live, dst)
		delete(c.live, src)
		c.mu.Unlock()
	}
	c.wg.Add(2)
	go pipe(in, out)
	go pipe(out, in)
}

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = true
	for conn := range c.live {
		conn.Close()
	}
}

func (c *cutter) mend() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = false
	for _, in := range c.queue {
		c.relay(in)
	}
	c.queue = nil
}

func (c *cutter) close() {
	c.ln.Close()
	c.mu.Lock()
	c.holding = false
	for conn := range c.live {
		conn.Close()
	}
	for _, conn := range c.queue {
		conn.Close()
	}
	c.queue = nil
	c.mu.Unlock()
	c.wg.Wait()
}

// A page whose connection is cut shows it, reconnects by itself, and then
// shows every message of the turn that ran meanwhile exactly once: from the
// events replayed since the last it saw, or, when cdevd no longer has them
// (a gap), from the transcript reloaded.
func TestConsoleLostConnection(t *testing.T) {
	t.Run("replay", func(t *testing.T) { lostConnection(t, false) })
	t.Run("gap", func(t *testing.T) { lostConnection(t, true) })
}

func lostConnection(t *testing.T, gap bool) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	env := claudetest.Env(t, fake.URL())
	ws := t.TempDir()
	cfg := daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: env, KillGrace: 2 * time.Second}),
	}}
	if gap {
		// A replay buffer of one event: the page comes back to a gap.
		cfg.Sessions = sessions.Config{ReplayEvents: 1, ReplayMax: 1, ReplayAge: time.Nanosecond}
	}
	d := startDaemon(t, cfg)
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if req.LastUserText() == "while you were away" {
			return fakeanthropic.Slow("this answer streamed while the page was cut off", 5*time.Millisecond)
		}
		return fakeanthropic.Echo(req)
	})
	relay := newCutter(t, d.Addr())
	_, frag, _ := strings.Cut(d.ConsoleURL(), "#")

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate("http://"+relay.Addr()+"/#"+frag))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)

	// A first turn seen live, so that a reconnect replaying what the page
	// already has would show as duplicates.
	do(t, a, "send a prompt", chromedp.SendKeys(chromedp.CSS("#prompt"), "hello"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the first answer", has(".msg.assistant:not(.streaming)", "hello"))
	until(t, a, "idle", `document.querySelector('#state').textContent === 'idle'`)
	deltas0 := eval[int](t, a, "Number(document.querySelector('#transcript').dataset.deltas || 0)")
	msgs0 := eval[int](t, a, `document.querySelectorAll('#transcript .msg').length`)
	if deltas0 == 0 || msgs0 < 2 {
		t.Fatalf("the first turn showed %d deltas and %d messages; the test needs some of each", deltas0, msgs0)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*claudetest.Timeout)
	defer cancel()
	cl, err := client.Dial(ctx, client.Config{URL: d.URL(), Token: d.Token()})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Watch(ctx, rpc.WatchParams{WorkspaceID: wid, SessionID: id, AgentType: claude.ID}); err != nil {
		t.Fatal(err)
	}

	relay.cut()
	until(t, a, "the lost-connection banner", `!document.querySelector('#banner').hidden && `+
		has("#banner", "Connection lost"))
	// The page tries again and is held: the turn runs while it is away.
	until(t, a, "reconnecting", has("#conn", "reconnecting"))
	select {
	case <-relay.held:
	case <-ctx.Done():
		t.Fatal("the page did not try to reconnect")
	}

	if _, err := cl.SessionSend(ctx, rpc.SessionSendParams{SessionID: id, AgentType: claude.ID, Prompt: "while you were away"}); err != nil {
		t.Fatal(err)
	}
	msgs, deltas := map[string]int{}, 0
	for done := false; !done; {
		select {
		case ev := <-cl.Events():
			var p struct {
				SessionID string `json:"session_id"`
				ID        string `json:"id"`
			}
			if err := json.Unmarshal(ev.Params, &p); err != nil || p.SessionID != id {
				continue
			}
			switch ev.Type() {
			case "message_delta":
				deltas++
			case "claude_message":
				msgs[p.ID]++
			case "turn_completed":
				done = true
			case "error":
				t.Fatalf("the turn failed: %s", ev.Params)
			}
		case <-ctx.Done():
			t.Fatal("the turn did not complete")
		}
	}
	if deltas == 0 || len(msgs) < 2 {
		t.Fatalf("the turn streamed %d deltas and %d messages; the test needs some of each", deltas, len(msgs))
	}
	if n := eval[int](t, a, `document.querySelectorAll('#transcript .msg').length`); n != msgs0 {
		t.Fatal("the page saw the turn while cut off: the cut did not hold")
	}
	if !gap {
		shot(t, a, "8-lost-connection")
	}

	relay.mend()
	until(t, a, "connected again", `document.querySelector('#conn.open') && document.querySelector('#banner').hidden`)
	until(t, a, "the answer", has(".msg.assistant:not(.streaming)", "this answer streamed while the page was cut off"))
	until(t, a, "idle", `document.querySelector('#state').textContent === 'idle'`)
	// Every message once (by id), every delta once, and nothing else.
	for mid := range msgs {
		if n := eval[int](t, a, fmt.Sprintf(`document.querySelectorAll('#transcript .msg[data-id=%q]').length`, mid)); n != 1 {
			t.Errorf("message %s rendered %d times", mid, n)
		}
	}
	if n := eval[int](t, a, `document.querySelectorAll('#transcript .msg').length`); n != msgs0+len(msgs) {
		t.Errorf("%d messages rendered, want %d before the cut + %d of the turn", n, msgs0, len(msgs))
	}
	// After a gap the turn comes from the transcript, without its deltas.
	want := deltas0 + deltas
	if gap {
		want = deltas0
	}
	if n := eval[int](t, a, "Number(document.querySelector('#transcript').dataset.deltas || 0)"); n != want {
		t.Errorf("%d deltas rendered, want %d (%d before the cut, %d in the turn, gap %v)", n, want, deltas0, deltas, gap)
	}
	if gap {
		shot(t, a, "9-reconnected-after-gap")
	} else {
		shot(t, a, "9-reconnected")
	}
}

// A session whose CLI crashes says so, with the exit code.
func TestConsoleCrashedSession(t *testing.T) {
	bctx := browser(t)
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t)}),
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir(), KillGrace: 2 * time.Second}),
	}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "pick the scripted runtime", chromedp.SetValue(chromedp.CSS("#start-runtime"), scripted.ID))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)
	if rt := eval[string](t, a, "document.querySelector('#session').dataset.runtime"); rt != scripted.ID {
		t.Fatalf("session of runtime %q: not a scripted session", rt)
	}
	do(t, a, "send a crashing prompt", chromedp.SendKeys(chromedp.CSS("#prompt"), `{"steps":[{"delta":"about to "},{"crash":3}]}`),
		chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the crash note", `!document.querySelector('#session-note').hidden && document.querySelector('#session-note.crashed') && `+
		has("#session-note", "exit code 3"))
	until(t, a, "state error", `document.querySelector('#state').textContent === 'error'`)
	// The draft the crash cut short is no longer shown as being written.
	until(t, a, "the cut draft", has(".msg.assistant.interrupted", "about to")+` && !document.querySelector('.msg.streaming')`)
	shot(t, a, "10-crashed")
}
