package stdiorpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// waitFor bounds every wait in these tests; nothing sleeps.
const waitFor = 10 * time.Second

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// fake plays the CLI on the other end of two io.Pipes.
type fake struct {
	t     *testing.T
	out   *io.PipeWriter // the CLI's stdout: what the peer reads
	lines chan []byte    // the CLI's stdin: what the peer wrote, line by line
}

// errors collects what the peer reported through OnError.
type errorLog struct {
	mu   sync.Mutex
	errs []error
	ch   chan error
}

func (l *errorLog) add(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
	l.ch <- err
}

func (l *errorLog) await(t *testing.T, target error) error {
	t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case err := <-l.ch:
			if errors.Is(err, target) {
				return err
			}
		case <-deadline:
			t.Fatalf("no %v reported", target)
		}
	}
}

func start(t *testing.T, h Handlers, opts Options) (*Peer, *fake, *errorLog) {
	t.Helper()
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	log := &errorLog{ch: make(chan error, 1000)}
	if h.OnError == nil {
		h.OnError = log.add
	}
	p := New(outR, inW, h, opts)
	f := &fake{t: t, out: outW, lines: make(chan []byte, 1000)}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(inR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(f.lines)
	}()
	t.Cleanup(func() {
		_ = p.Close()
		_ = outW.Close()
		<-scanned
	})
	return p, f, log
}

func (f *fake) send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.out, line+"\n"); err != nil {
		f.t.Fatalf("fake send: %v", err)
	}
}

// recv returns the next message the peer wrote, decoded loosely.
func (f *fake) recv() map[string]json.RawMessage {
	f.t.Helper()
	select {
	case line, ok := <-f.lines:
		if !ok {
			f.t.Fatal("peer closed its output")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			f.t.Fatalf("peer wrote %q: %v", line, err)
		}
		return m
	case <-time.After(waitFor):
		f.t.Fatal("peer wrote nothing")
		return nil
	}
}

// goCall runs a Call and hands back its error.
func goCall(p *Peer, ctx context.Context, method string, params, result any) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- p.Call(ctx, method, params, result) }()
	return ch
}

func awaitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(waitFor):
		t.Fatal("call did not end")
		return nil
	}
}

func TestCallAcceptsRepliesWithoutJSONRPC(t *testing.T) {
	p, f, _ := start(t, Handlers{}, Options{})

	var got struct{ CodexHome string }
	done := goCall(p, context.Background(), "initialize", map[string]any{"clientInfo": map[string]string{"name": "cdevd"}}, &got)
	req := f.recv()
	if string(req["jsonrpc"]) != `"2.0"` || string(req["method"]) != `"initialize"` || string(req["params"]) != `{"clientInfo":{"name":"cdevd"}}` {
		t.Fatalf("request on the wire: %v", req)
	}
	// Codex's shape: no "jsonrpc" member.
	f.send(fmt.Sprintf(`{"id":%s,"result":{"codexHome":"/h/.codex"}}`, req["id"]))
	if err := awaitErr(t, done); err != nil || got.CodexHome != "/h/.codex" {
		t.Fatalf("Call = %v, result %+v", err, got)
	}

	// An error reply, "error" before "id" as Codex writes it.
	done = goCall(p, context.Background(), "thread/resume", nil, nil)
	req = f.recv()
	if _, has := req["params"]; has {
		t.Fatalf("nil params were sent: %v", req)
	}
	f.send(fmt.Sprintf(`{"error":{"code":-32600,"message":"no rollout found","data":{"x":1}},"id":%s}`, req["id"]))
	var rpcErr *Error
	if err := awaitErr(t, done); !errors.As(err, &rpcErr) || rpcErr.Code != -32600 || rpcErr.Message != "no rollout found" || string(rpcErr.Data) != `{"x":1}` {
		t.Fatalf("error reply gave %v", err)
	}

	// A null result is a success.
	done = goCall(p, context.Background(), "turn/interrupt", nil, nil)
	req = f.recv()
	f.send(fmt.Sprintf(`{"id":%s,"result":null}`, req["id"]))
	if err := awaitErr(t, done); err != nil {
		t.Fatalf("null result: %v", err)
	}
}

// A server→client request with id 0 is answered later from another
// goroutine, while a Call of ours is pending, and its id comes back as is.
func TestServerRequestAnsweredLaterEchoesID(t *testing.T) {
	reqs := make(chan *Request, 10)
	p, f, _ := start(t, Handlers{OnRequest: func(r *Request) { reqs <- r }}, Options{})

	pending := goCall(p, context.Background(), "turn/start", nil, nil)
	callReq := f.recv()

	ids := []string{`0`, `"0"`, `"abc"`, `-5`, `1.5`, `12345678901234567890`, `1e3`}
	for _, id := range ids {
		f.send(`{"method":"item/commandExecution/requestApproval","id":` + id + `,"params":{"command":"touch x"}}`)
	}
	got := make([]*Request, 0, len(ids))
	for range ids {
		select {
		case r := <-reqs:
			got = append(got, r)
		case <-time.After(waitFor):
			t.Fatal("request not delivered")
		}
	}
	// Answer from other goroutines, in reverse, as users would.
	var wg sync.WaitGroup
	for i := len(got) - 1; i >= 0; i-- {
		wg.Add(1)
		go func(r *Request) {
			defer wg.Done()
			if err := r.Reply(map[string]string{"decision": "accept"}); err != nil {
				t.Errorf("Reply: %v", err)
			}
		}(got[i])
		wg.Wait()
	}
	for i := len(got) - 1; i >= 0; i-- {
		m := f.recv()
		if string(m["id"]) != ids[i] || string(m["result"]) != `{"decision":"accept"}` || string(m["jsonrpc"]) != `"2.0"` {
			t.Fatalf("reply %d = %v, want id %s", i, m, ids[i])
		}
		if got[i].Method != "item/commandExecution/requestApproval" || string(got[i].Params) != `{"command":"touch x"}` {
			t.Fatalf("request %d = %+v", i, got[i])
		}
	}
	if err := got[0].Reply(nil); !errors.Is(err, ErrAlreadyReplied) {
		t.Fatalf("second Reply = %v", err)
	}

	// An error answer.
	f.send(`{"jsonrpc":"2.0","method":"session/request_permission","id":7}`)
	r := <-reqs
	if err := r.ReplyError(&Error{Code: -32000, Message: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	if m := f.recv(); string(m["id"]) != `7` || string(m["error"]) != `{"code":-32000,"message":"cancelled"}` {
		t.Fatalf("error reply = %v", m)
	}

	f.send(fmt.Sprintf(`{"id":%s,"result":{}}`, callReq["id"]))
	if err := awaitErr(t, pending); err != nil {
		t.Fatal(err)
	}
}

// Notifications and requests reach the handlers in the order of the lines,
// and a handler may Call the CLI (the reader keeps reading meanwhile).
func TestNotificationsInOrderAndHandlerMayCall(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	calledBack := make(chan error, 1)
	lastSeen := make(chan struct{})
	var p *Peer
	h := Handlers{
		OnNotification: func(method string, params json.RawMessage) {
			if method == "needs/call" {
				// Bounded: were handlers run on the read loop, this would
				// never get its reply.
				ctx, cancel := context.WithTimeout(context.Background(), waitFor)
				defer cancel()
				calledBack <- p.Call(ctx, "back", nil, nil)
			}
			mu.Lock()
			seen = append(seen, method+string(params))
			mu.Unlock()
			if method == "last" {
				close(lastSeen)
			}
		},
		OnRequest: func(r *Request) {
			mu.Lock()
			seen = append(seen, "request:"+string(r.ID))
			mu.Unlock()
			go func() { _ = r.Reply(nil) }()
		},
	}
	p, f, _ := start(t, h, Options{})

	pending := goCall(p, context.Background(), "turn/start", nil, nil)
	callReq := f.recv()

	var want []string
	f.send(`{"method":"needs/call"}`)
	want = append(want, "needs/call")
	// The handler is now blocked in its Call: later lines must still be read.
	back := f.recv()
	if string(back["method"]) != `"back"` {
		t.Fatalf("handler's call = %v", back)
	}
	for i := 0; i < 100; i++ {
		switch {
		case i == 50:
			f.send(fmt.Sprintf(`{"id":%s,"result":{}}`, callReq["id"]))
		case i%10 == 3:
			f.send(fmt.Sprintf(`{"method":"ask","id":%d}`, i))
			want = append(want, fmt.Sprintf("request:%d", i))
		default:
			f.send(fmt.Sprintf(`{"method":"item/agentMessage/delta","params":{"n":%d}}`, i))
			want = append(want, fmt.Sprintf(`item/agentMessage/delta{"n":%d}`, i))
		}
	}
	if err := awaitErr(t, pending); err != nil {
		t.Fatalf("Call answered amid notifications: %v", err)
	}
	f.send(fmt.Sprintf(`{"id":%s,"result":{}}`, back["id"]))
	if err := awaitErr(t, calledBack); err != nil {
		t.Fatalf("handler's Call: %v", err)
	}
	// Every request got its reply; wait for them, then for the last delivery.
	for i := 0; i < 10; i++ {
		f.recv()
	}
	f.send(`{"method":"last"}`)
	want = append(want, "last")
	select {
	case <-lastSeen:
	case <-time.After(waitFor):
		t.Fatal("last notification not delivered")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("order:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// A request arriving with no OnRequest handler is answered "method not
// found" so the CLI is not left waiting.
func TestRequestWithoutHandlerIsRefused(t *testing.T) {
	_, f, _ := start(t, Handlers{}, Options{})
	f.send(`{"method":"fs/read_text_file","id":0}`)
	m := f.recv()
	var e Error
	if err := json.Unmarshal(m["error"], &e); err != nil || string(m["id"]) != "0" || e.Code != -32601 {
		t.Fatalf("reply = %v", m)
	}
}

// With OrderedReplies a Call returns only once every notification read
// before its reply was handled (ACP's prompt reply ends the stream of
// updates before it), and a reply followed at once by the end of stdout is
// still delivered, not failed as closed.
func TestOrderedReplies(t *testing.T) {
	var mu sync.Mutex
	handled := 0
	release := make(chan struct{})
	h := Handlers{OnNotification: func(method string, _ json.RawMessage) {
		if method == "slow" {
			<-release // the reply is read meanwhile and must wait
		}
		mu.Lock()
		handled++
		mu.Unlock()
	}}
	p, f, _ := start(t, h, Options{OrderedReplies: true})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // registered after start's: runs first, so Close is not stuck behind the handler
	pending := goCall(p, context.Background(), "session/prompt", nil, nil)
	req := f.recv()
	f.send(`{"method":"slow"}`)
	for i := 0; i < 20; i++ {
		f.send(`{"method":"session/update"}`)
	}
	f.send(fmt.Sprintf(`{"id":%s,"result":{"stopReason":"end_turn"}}`, req["id"]))
	// Unordered, the reply is delivered within microseconds of being read;
	// ordered, never while the handler before it is blocked.
	select {
	case err := <-pending:
		t.Fatalf("the reply overtook the notifications before it (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	free()
	if err := awaitErr(t, pending); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if handled != 21 {
		t.Errorf("the Call returned with %d of 21 notifications handled", handled)
	}
	mu.Unlock()

	last := goCall(p, context.Background(), "session/prompt", nil, nil)
	req = f.recv()
	f.send(fmt.Sprintf(`{"id":%s,"result":{}}`, req["id"]))
	_ = f.out.Close() // the agent exits right after its last reply
	if err := awaitErr(t, last); err != nil {
		t.Fatalf("a reply read before the end of stdout was failed: %v", err)
	}
	<-p.Done()
}
