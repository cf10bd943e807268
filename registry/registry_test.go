package registry

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

var update = flag.Bool("update", false, "rewrite golden files")

// stub is an adapter that only describes itself: the registry never starts sessions.
type stub struct {
	info    runtimes.Info
	avail   runtimes.Availability
	detects atomic.Int32
	gate    atomic.Pointer[gate] // when set, Detect waits for it to open
}

func (s *stub) Info() runtimes.Info { return s.info }
func (s *stub) Detect(context.Context) runtimes.Availability {
	s.detects.Add(1)
	if g := s.gate.Load(); g != nil {
		g.once.Do(func() { close(g.entered) })
		<-g.open
	}
	return s.avail
}
func (s *stub) Start(context.Context, runtimes.StartRequest, runtimes.Sink) (runtimes.Session, error) {
	return nil, errors.New("not startable")
}
func (s *stub) Transcripts() runtimes.Transcripts { return nil }

func fixture() (*stub, *stub, *stub) {
	active := &stub{info: runtimes.Info{ID: "alpha", DisplayName: "Alpha", Features: runtimes.Features{
		Resume: true, Permissions: true, InteractiveQuestions: true, IDKnownAtStart: true, ActivateOnResume: true},
		PermissionModes: []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionPlan}},
		avail: runtimes.Availability{Installed: true, Path: "/bin/alpha", Version: "1.2.3"}}
	preview := &stub{info: runtimes.Info{ID: "beta", DisplayName: "Beta", Maturity: runtimes.Preview,
		Features: runtimes.Features{Resume: true}},
		avail: runtimes.Availability{Installed: true, Version: "0.9"}}
	missing := &stub{info: runtimes.Info{ID: "gamma", DisplayName: "Gamma"},
		avail: runtimes.Availability{Reason: "gamma not found on PATH"}}
	return active, preview, missing
}

func TestSnapshotGolden(t *testing.T) {
	a, b, c := fixture()
	r, err := New(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	r.now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	got, err := json.MarshalIndent(r.Snapshot(context.Background()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "registry.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./registry -update)", err)
	}
	if string(want) != string(got)+"\n" {
		t.Fatalf("registry snapshot changed (run go test ./registry -update if intended):\n%s", got)
	}
}

func TestStatusTellsTheTruth(t *testing.T) {
	a, b, c := fixture()
	r, _ := New(a, b, c)
	ctx := context.Background()
	for id, want := range map[string]rpc.RuntimeStatus{"alpha": rpc.RuntimeActive, "beta": rpc.RuntimePreview,
		"gamma": rpc.RuntimeDisabled} {
		if got := r.Status(ctx, id).Status; got != want {
			t.Errorf("%s: status %s, want %s", id, got, want)
		}
	}
	r.Disable("alpha", "turned off in config")
	if st := r.Status(ctx, "alpha"); st.Status != rpc.RuntimeDisabled || st.Reason != "turned off in config" {
		t.Fatalf("disabled by config: %+v", st)
	}
}

// block makes s's Detect wait until the returned function is called.
// gate holds Detect calls until opened, and says when one arrived.
type gate struct {
	open    chan struct{}
	entered chan struct{} // closed by the first Detect that waits
	once    sync.Once
}

func (s *stub) block() (release func()) {
	release, _ = s.blockAndWatch()
	return release
}

// blockAndWatch is block, plus a channel closed once a Detect is held.
func (s *stub) blockAndWatch() (release func(), entered <-chan struct{}) {
	g := &gate{open: make(chan struct{}), entered: make(chan struct{})}
	s.gate.Store(g)
	return func() { close(g.open) }, g.entered
}

// clock is a settable now for the registry, safe to read from its
// background detections.
type clock struct{ ns atomic.Int64 }

func newClock(r *Registry) *clock {
	c := &clock{}
	c.ns.Store(time.Now().UnixNano())
	r.now = func() time.Time { return time.Unix(0, c.ns.Load()) }
	return c
}

func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func TestDetectionIsCached(t *testing.T) {
	a, _, _ := fixture()
	r, _ := New(a)
	clk := newClock(r)
	for range 5 {
		r.Snapshot(context.Background())
	}
	if n := a.detects.Load(); n != 1 {
		t.Fatalf("detected %d times within the TTL, want 1", n)
	}
	clk.advance(DetectTTL + time.Second)
	r.Snapshot(context.Background()) // stale: answered, and refreshed behind
	r.Close()                        // waits for the refresh
	if n := a.detects.Load(); n != 2 {
		t.Fatalf("detected %d times after the TTL, want 2", n)
	}
}

// within fails the test unless f returns before the deadline.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s waited on a detection", what)
	}
}

func TestRoutedCallsNeverWaitOnDetection(t *testing.T) {
	// The CLI's --version hangs. Neither a first routed call nor one after
	// the cache went stale waits for it.
	a, _, missing := fixture()
	release := a.block()
	r, err := New(a, missing)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	clk := newClock(r)
	within(t, "a routed call before any detection", func() {
		if _, err := r.Route(context.Background(), rpc.MethodSessionStart, "alpha"); err != nil {
			t.Errorf("Route before detection: %v", err)
		}
	})
	release()
	r.Status(context.Background(), "alpha") // the first detection, now finished
	r.Status(context.Background(), "gamma")

	release, entered := a.blockAndWatch()
	clk.advance(DetectTTL + time.Second)
	within(t, "a routed call on a stale detection", func() {
		if _, err := r.Route(context.Background(), rpc.MethodSessionStart, "alpha"); err != nil {
			t.Errorf("Route on a stale detection: %v", err)
		}
		// The stale result still says what it said: gamma stays disabled.
		_, err := r.Route(context.Background(), rpc.MethodSessionStart, "gamma")
		var rerr *rpc.Error
		if !errors.As(err, &rerr) || rerr.Code != rpc.CodeInvalidParams {
			t.Errorf("Route to a missing CLI on a stale detection = %v, want -32602", err)
		}
	})
	// The stale result has a refresh under way (held in --version).
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh of a stale detection started")
	}
	release()
	r.Close()
	if n := a.detects.Load(); n != 2 {
		t.Errorf("alpha detected %d times, want 2 (the first, and one refresh once stale)", n)
	}
}

func TestWarmDetectsEveryRuntimeInTheBackground(t *testing.T) {
	a, b, c := fixture()
	r, err := New(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	r.Warm()
	r.Close()
	for _, s := range []*stub{a, b, c} {
		if n := s.detects.Load(); n != 1 {
			t.Errorf("%s detected %d times, want 1", s.info.ID, n)
		}
	}
	r.Warm() // after Close: nothing starts
	if n := a.detects.Load(); n != 1 {
		t.Errorf("a detection started after Close")
	}
}

func TestDuplicateIDsRefused(t *testing.T) {
	a, _, _ := fixture()
	if _, err := New(a, a); err == nil {
		t.Fatal("two adapters with one id were accepted")
	}
}

func TestRouteErrors(t *testing.T) {
	a, _, c := fixture()
	r, _ := New(a, c)
	t.Cleanup(r.Close)
	ctx := context.Background()
	// Every client's initialize takes a snapshot (waiting for the first
	// detection) before it may make a routed call.
	r.Snapshot(ctx)
	if got, err := r.Route(ctx, rpc.MethodSessionStart, ""); err != nil || got != a {
		t.Fatalf("default route = %v, %v", got, err)
	}
	var e *rpc.Error
	_, err := r.Route(ctx, rpc.MethodSessionSend, "nope")
	if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams {
		t.Fatalf("unknown: %v", err)
	}
	data := e.Data.(map[string]any)
	if data["agent_type"] != "nope" || data["method"] != rpc.MethodSessionSend ||
		!slices.Equal(data["supported_agent_types"].([]string), []string{"alpha", "gamma"}) {
		t.Fatalf("unknown data = %v", data)
	}
	_, err = r.Route(ctx, rpc.MethodSessionStart, "gamma")
	if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams {
		t.Fatalf("disabled: %v", err)
	}
	data = e.Data.(map[string]any)
	if data["status"] != "disabled" || data["reason"] != "gamma not found on PATH" {
		t.Fatalf("disabled data = %v", data)
	}
}

func TestConcurrentCallersShareOneDetection(t *testing.T) {
	// A burst of connections on an empty (or expired) cache runs the CLI's
	// --version once, not once per connection.
	a, _, _ := fixture()
	release := a.block()
	r, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	const callers = 50
	var entered, done sync.WaitGroup
	entered.Add(callers)
	done.Add(callers)
	got := make([]Status, callers)
	for i := range callers {
		go func() {
			defer done.Done()
			entered.Done()
			got[i] = r.Status(context.Background(), "alpha")
		}()
	}
	entered.Wait()
	release()
	done.Wait()
	if n := a.detects.Load(); n != 1 {
		t.Errorf("%d callers ran Detect %d times, want once", callers, n)
	}
	for i, st := range got {
		if st.Status != rpc.RuntimeActive || st.Availability.Version != "1.2.3" {
			t.Fatalf("caller %d got %+v", i, st)
		}
	}
}
