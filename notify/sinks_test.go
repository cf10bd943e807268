package notify

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/sessions"
)

// A sink that times out, one that answers 500 and one that refuses the
// connection: each is retried, counted as failed, and the engine's call
// (Observe, made under a session's lock) is not slowed by any of them.
func TestDeadSinksAreRetriedCountedAndDelayNothing(t *testing.T) {
	// Each attempt that reaches a server is counted on its channel. Under
	// load an attempt's request may be read only after the sink gave up on
	// it, so the test waits for the attempts rather than counting them
	// when the failures are reported.
	hangs, errs := make(chan struct{}, 1000), make(chan struct{}, 1000)
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hangs <- struct{}{}
		select { // longer than the sink's timeout
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) })
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errs <- struct{}{}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/hook"
	ln.Close() // nothing listens there now: connections are refused

	sink := func(name, url string) Sink {
		return NewWebhook(SinkConfig{Name: name, Kinds: Kinds, Timeout: 200 * time.Millisecond, Retries: 2,
			Backoff: 20 * time.Millisecond}, url, testSecret)
	}
	outcomes := make(chan string, 1000)
	n, _ := start(t, Config{Sinks: []Sink{sink("timeout", hanging.URL), sink("500", failing.URL), sink("refused", refused)},
		delivered: func(sink string, _ Notification, err error) {
			if err != nil {
				outcomes <- sink
			}
		}})

	// The engine's side: how long Observe takes while the sinks fail. A
	// call that waited for a sink would take the sink's 200 ms timeout; the
	// p99 leaves room for the odd preemption on a loaded machine.
	var took []time.Duration
	for i := range 200 {
		ev := permission(t, "s1", "r"+string(rune('a'+i%26))+string(rune('a'+i/26)), "ls")
		began := time.Now()
		n.Observe(ev)
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	p50, p99 := took[len(took)/2], took[len(took)*99/100]
	t.Logf("Observe while every sink failed: p50 %v, p99 %v, max %v", p50, p99, took[len(took)-1])
	if p99 > 50*time.Millisecond {
		t.Errorf("Observe p99 %v: a failing sink slowed the session", p99)
	}
	failed := map[string]bool{}
	for len(failed) < 3 {
		failed[<-outcomes] = true
	}
	for _, s := range []string{"timeout", "500", "refused"} {
		if f := count(n, s, KindPermission, resultFailed); f < 1 {
			t.Errorf("%s: failed = %v", s, f)
		}
		if c := count(n, s, KindPermission, resultSent); c != 0 {
			t.Errorf("%s: sent = %v", s, c)
		}
	}
	// The first notification was tried three times (two retries) at each.
	for _, at := range []struct {
		name     string
		attempts chan struct{}
	}{{"the hanging sink", hangs}, {"the failing sink", errs}} {
		for i := range 3 {
			select {
			case <-at.attempts:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: %d attempts after 10s, want 3 at least", at.name, i)
			}
		}
	}
}

// 1,000 permission requests in a second at a sink that cannot keep up stay
// bounded: at most the queue and one notification saying how many more.
func TestFloodIsCoalescedAndBounded(t *testing.T) {
	r := newReceiver(t)
	gate := make(chan struct{})
	inner := r.srv.Config.Handler
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		<-gate // the sink takes nothing until the flood is over
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(slow.Close)
	done := make(chan Notification, 2000)
	n, _ := start(t, Config{
		Sinks:     []Sink{NewWebhook(SinkConfig{Name: "hook", Kinds: Kinds, Timeout: 30 * time.Second}, slow.URL, testSecret)},
		delivered: func(_ string, n Notification, _ error) { done <- n }})
	flood := make([]*sessions.Event, 1000)
	for i := range flood {
		flood[i] = permission(t, "s"+string(rune('a'+i%20)), "r"+itoa3(i), "ls")
	}
	began := time.Now()
	for _, ev := range flood {
		n.Observe(ev)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("1,000 events took %v to observe", took)
	}
	// The notifier takes them all in before the gate opens.
	for count(n, "hook", KindPermission, resultCoalesced)+float64(queueSize)+1 < 1000 {
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctxT(t).Done():
			t.Fatal("the notifier did not take the flood in")
		}
	}
	close(gate)
	var posts []Notification
	for {
		p := <-done
		posts = append(posts, p)
		if p.Kind == KindCoalesced {
			break
		}
	}
	if len(posts) > queueSize+2 {
		t.Errorf("%d requests reached the sink for a flood of 1,000; want at most %d", len(posts), queueSize+2)
	}
	last := posts[len(posts)-1]
	coalesced := count(n, "hook", KindPermission, resultCoalesced)
	if coalesced == 0 || last.Body == "" {
		t.Errorf("coalesced = %v, summary %q", coalesced, last.Body)
	}
	t.Logf("flood of 1,000: %d requests sent, %v coalesced into one: %q", len(posts), coalesced, last.Body)
	if len(r.got) != len(posts) {
		t.Errorf("the receiver got %d requests, the notifier delivered %d", len(r.got), len(posts))
	}
}

func itoa3(i int) string {
	return string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

// ntfy: a local fake ntfy server receives the JSON publish format, with
// the access token, the priority, the tags and the click URL; a
// withdrawal sends nothing (ntfy cannot take a message back).
func TestNtfyPublishFormat(t *testing.T) {
	got := make(chan *http.Request, 10)
	bodies := make(chan []byte, 10)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		_, _ = io.WriteString(w, `{"id":"abc","event":"message"}`)
	}))
	t.Cleanup(fake.Close)
	outcomes := make(chan error, 10)
	sink := NewNtfy(SinkConfig{Name: "phone", Kinds: Kinds}, fake.URL+"/", "cdevd-alerts", "tk_secret")
	n, _ := start(t, Config{Sinks: []Sink{sink}, delivered: func(_ string, _ Notification, err error) { outcomes <- err }})
	n.Observe(sessionEvent(t, rpc.EventQuestion, "s1", rpc.QuestionEvent{RequestID: "q1",
		Questions: []rpc.Question{{Question: "Deploy to production?"}}}))
	if err := <-outcomes; err != nil {
		t.Fatal(err)
	}
	req, body := <-got, <-bodies
	if req.Method != http.MethodPost || req.URL.Path != "/" || req.Header.Get("Content-Type") != "application/json" ||
		req.Header.Get("Authorization") != "Bearer tk_secret" {
		t.Errorf("request %s %s, headers %v", req.Method, req.URL.Path, req.Header)
	}
	var m NtfyMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Topic != "cdevd-alerts" || m.Title != "claude asks a question" || m.Priority != 4 ||
		m.Message != "Deploy to production? · myproject on testhost" ||
		m.Click != "http://127.0.0.1:16180/#session=s1&workspace=ws1&agent=claude" || !slices.Contains(m.Tags, "question") {
		t.Errorf("published %s", body)
	}
	n.Observe(sessionEvent(t, rpc.EventPermissionResolved, "s1", rpc.PermissionResolvedEvent{RequestID: "q1", Decision: "answered"}))
	n.Observe(sessionEvent(t, rpc.EventTurnCompleted, "s1", rpc.TurnCompletedEvent{}))
	if err := <-outcomes; err != nil {
		t.Fatal(err)
	}
	<-got
	if err := json.Unmarshal(<-bodies, &m); err != nil || m.Title != "claude finished its turn" {
		t.Errorf("next publish %+v, %v: want the turn's end, no withdrawal before it", m, err)
	}
}
