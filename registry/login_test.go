package registry

import (
	"context"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// loginStub is a stub whose sessions' events go through a kit.Login, as
// the adapters' do; Start delivers evs at once.
type loginStub struct {
	stub
	login *kit.Login
	evs   []runtimes.Event
}

func (s *loginStub) Start(_ context.Context, _ runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	sink = s.login.Watch(sink)
	for _, ev := range s.evs {
		sink(ev)
	}
	return nil, nil
}

func (s *loginStub) Unauthenticated() (string, bool) { return s.login.Unauthenticated() }

// A turn that fails with auth_required disables the runtime at once: the
// client told of the failure already finds the record disabled, with the
// CLI's words and the fix, and routed calls refused; the detection (still
// "logged in", as credential files say of an expired token) is not waited
// for. A turn that completes makes it active again.
func TestAuthRequiredTurnDisablesAtOnce(t *testing.T) {
	s := &loginStub{stub: stub{info: runtimes.Info{ID: "alpha", DisplayName: "Alpha"},
		avail: runtimes.Availability{Installed: true, Version: "1", Login: runtimes.LoggedIn}},
		login: kit.NewLogin("run `alpha login`")}
	r, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if st := r.Status(ctx, "alpha"); st.Status != rpc.RuntimeActive {
		t.Fatalf("before: %+v", st)
	}

	var seen rpc.Runtime
	s.evs = []runtimes.Event{runtimes.TurnFailed{Code: kit.CodeAuthRequired, Message: "401 invalid x-api-key"}}
	if _, err := s.Start(ctx, runtimes.StartRequest{}, func(ev runtimes.Event) {
		if _, ok := ev.(runtimes.TurnFailed); ok {
			seen = r.Snapshot(ctx).Runtimes[0]
		}
	}); err != nil {
		t.Fatal(err)
	}
	want := "a turn failed for lack of login (401 invalid x-api-key): run `alpha login`"
	if seen.Status != rpc.RuntimeDisabled || seen.Availability.Reason != want || seen.Availability.Login != rpc.LoggedOut {
		t.Fatalf("record when the failure was delivered: %+v", seen)
	}
	if s.detects.Load() != 1 {
		t.Errorf("%d detections: the report must not wait for one", s.detects.Load())
	}
	if _, err := r.Route(ctx, rpc.MethodSessionStart, "alpha"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("route: %v", err)
	}
	// Stored sessions stay readable: nothing there needs the CLI to answer.
	if _, err := r.Route(ctx, rpc.MethodHistory, "alpha"); err != nil {
		t.Errorf("history of a logged-out runtime: %v", err)
	}

	// Another kind of failure changes nothing; a completed turn ends it.
	s.evs = []runtimes.Event{runtimes.TurnFailed{Code: runtimes.CodeRuntimeError}}
	s.Start(ctx, runtimes.StartRequest{}, func(runtimes.Event) {}) //nolint:errcheck
	if st := r.Status(ctx, "alpha"); st.Status != rpc.RuntimeDisabled {
		t.Errorf("after a runtime error: %+v", st)
	}
	s.evs = []runtimes.Event{runtimes.TurnCompleted{}}
	s.Start(ctx, runtimes.StartRequest{}, func(runtimes.Event) {}) //nolint:errcheck
	if st := r.Status(ctx, "alpha"); st.Status != rpc.RuntimeActive || st.Reason != "" {
		t.Errorf("after a completed turn: %+v", st)
	}

	// The adapter's own call does the same.
	s.login.ReportUnauthenticated("")
	if st := r.Status(ctx, "alpha"); st.Status != rpc.RuntimeDisabled || st.Reason != "a turn failed for lack of login: run `alpha login`" {
		t.Errorf("after ReportUnauthenticated: %+v", st)
	}
}

// A login the CLI reports unknown is carried as such and does not disable
// the runtime; one it reports logged out does, with its reason.
func TestLoginStateInRecord(t *testing.T) {
	unknown := &stub{info: runtimes.Info{ID: "u", DisplayName: "U"},
		avail: runtimes.Availability{Installed: true, Version: "1", Login: runtimes.LoginUnknown}}
	out := &stub{info: runtimes.Info{ID: "o", DisplayName: "O"},
		avail: runtimes.Availability{Installed: true, Version: "1", Login: runtimes.LoggedOut, Reason: "log in: run `o login`"}}
	r, err := New(unknown, out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rts := r.Snapshot(context.Background()).Runtimes
	if rts[0].Status != rpc.RuntimeActive || rts[0].Availability.Login != rpc.LoginUnknown || rts[0].Availability.Reason != "" {
		t.Errorf("unknown: %+v", rts[0])
	}
	if rts[1].Status != rpc.RuntimeDisabled || rts[1].Availability.Login != rpc.LoggedOut || rts[1].Availability.Reason != "log in: run `o login`" {
		t.Errorf("logged out: %+v", rts[1])
	}
	ctx := context.Background()
	if _, err := r.Route(ctx, rpc.MethodSessionSend, "o"); err == nil || !strings.Contains(err.Error(), "run `o login`") {
		t.Errorf("send to a logged-out runtime: %v", err)
	}
	for _, m := range []string{rpc.MethodHistory, rpc.MethodMessages, rpc.MethodWatch, rpc.MethodUnwatch} {
		if _, err := r.Route(ctx, m, "o"); err != nil {
			t.Errorf("%s of a logged-out runtime: %v", m, err)
		}
	}
	r.Disable("o", "off by policy")
	if _, err := r.Route(ctx, rpc.MethodHistory, "o"); err == nil {
		t.Error("history of a runtime disabled by configuration was routed")
	}
}
