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
	gate    chan struct{} // when set, Detect waits for it to close
}

func (s *stub) Info() runtimes.Info { return s.info }
func (s *stub) Detect(context.Context) runtimes.Availability {
	s.detects.Add(1)
	if s.gate != nil {
		<-s.gate
	}
	return s.avail
}
func (s *stub) Start(context.Context, runtimes.StartRequest, runtimes.Sink) (runtimes.Session, error) {
	return nil, errors.New("not startable")
}
func (s *stub) Transcripts() runtimes.Transcripts { return nil }

func fixture() (*stub, *stub, *stub) {
	active := &stub{info: runtimes.Info{ID: "alpha", DisplayName: "Alpha", Features: runtimes.Features{
		Resume: true, Permissions: true, InteractiveQuestions: true, IDKnownAtStart: true, ActivateOnResume: true}},
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

func TestDetectionIsCached(t *testing.T) {
	a, _, _ := fixture()
	r, _ := New(a)
	now := time.Now()
	r.now = func() time.Time { return now }
	for range 5 {
		r.Snapshot(context.Background())
	}
	if n := a.detects.Load(); n != 1 {
		t.Fatalf("detected %d times within the TTL, want 1", n)
	}
	now = now.Add(DetectTTL + time.Second)
	r.Snapshot(context.Background())
	if n := a.detects.Load(); n != 2 {
		t.Fatalf("detected %d times after the TTL, want 2", n)
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
	ctx := context.Background()
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
	a.gate = make(chan struct{})
	r, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
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
	close(a.gate)
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
