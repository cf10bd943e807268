package notify

// What the tests share: a webhook receiver that checks signatures, session
// events built as the engine frames them, and metric reads.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/sessions"
)

const testSecret = "s3cret-for-tests"

// received is one request a receiver took.
type received struct {
	header http.Header
	body   []byte
	note   Notification
	signed bool // the signature matched the body under testSecret
}

// receiver is a local webhook endpoint; answer decides each reply.
type receiver struct {
	srv    *httptest.Server
	got    chan received
	mu     sync.Mutex
	answer func(n int) int // status for the n-th request (from 1)
	n      int
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{got: make(chan received, 2000), answer: func(int) int { return http.StatusNoContent }}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		rec := received{header: req.Header.Clone(), body: body, signed: req.Header.Get(SignatureHeader) == Sign(testSecret, body)}
		_ = json.Unmarshal(body, &rec.note)
		r.mu.Lock()
		r.n++
		status := r.answer(r.n)
		r.mu.Unlock()
		r.got <- rec
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) webhook(kinds ...Kind) *Webhook {
	if len(kinds) == 0 {
		kinds = Kinds
	}
	return NewWebhook(SinkConfig{Name: "hook", Kinds: kinds, Backoff: 10 * time.Millisecond, Timeout: time.Second},
		r.srv.URL, testSecret)
}

// next waits for the next request.
func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case rec := <-r.got:
		if !rec.signed {
			t.Errorf("request %s not signed with the sink's secret (header %q)", rec.body, rec.header.Get(SignatureHeader))
		}
		return rec
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the receiver")
		return received{}
	}
}

// none checks that nothing arrives for d: the only way to show an absence
// is to wait for it a while, and d is the wait the test is about.
func (r *receiver) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case rec := <-r.got:
		t.Fatalf("unexpected request: %s", rec.body)
	case <-time.After(d):
	}
}

// present is a Presence the test switches.
type present struct {
	mu sync.Mutex
	on map[string]bool
}

func (p *present) set(id string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on == nil {
		p.on = map[string]bool{}
	}
	p.on[id] = on
}

func (p *present) Present(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.on[id]
}

func start(t *testing.T, cfg Config) (*Notifier, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	cfg.Metrics = reg
	if cfg.Machine == "" {
		cfg.Machine = "testhost"
	}
	cfg.Workspace = func(string) string { return "myproject" }
	cfg.ConsoleURL = func() string { return "http://127.0.0.1:16180/" }
	n := New(cfg)
	t.Cleanup(n.Close)
	return n, reg
}

func count(n *Notifier, sink string, k Kind, result string) float64 {
	var m dto.Metric
	if err := n.metrics.total.WithLabelValues(sink, string(k), result).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// seq numbers the events the tests build.
var seq int64

// sessionEvent builds the event the engine would emit: its frame is the
// wire's notification.
func sessionEvent(t *testing.T, typ, session string, params any) *sessions.Event {
	t.Helper()
	seq++
	h := rpc.EventHeader{SessionID: session, WorkspaceID: "ws1", AgentType: "claude", Seq: seq, Epoch: "e"}
	// Every event type embeds the header: set it through JSON.
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	hb, _ := json.Marshal(h)
	var hm map[string]any
	_ = json.Unmarshal(hb, &hm)
	for k, v := range hm {
		m[k] = v
	}
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": rpc.EventPrefix + typ, "params": m})
	if err != nil {
		t.Fatal(err)
	}
	return &sessions.Event{Seq: seq, Type: typ, SessionID: session, WorkspaceID: "ws1", At: time.Now(), Frame: frame}
}

func permission(t *testing.T, session, request, command string) *sessions.Event {
	return sessionEvent(t, rpc.EventPermission, session, rpc.PermissionEvent{RequestID: request, Type: rpc.PermBash,
		ToolName: "Bash", Target: command, Description: "run it"})
}

func resolved(t *testing.T, session, request string) *sessions.Event {
	return sessionEvent(t, rpc.EventPermissionResolved, session, rpc.PermissionResolvedEvent{RequestID: request,
		ResolvedBy: "phone", Decision: "allow"})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
