package contracttests

import (
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// Whatever the CLI does wrong, the turn ends in exactly one terminal event,
// the server keeps answering, the session recovers on the next turn, and no
// process is left behind.
func TestFaults(t *testing.T) {
	inProcessOnly(t)
	fast := func(_ *daemon.Config, sc *scripted.Config) { sc.KillGrace = 200 * time.Millisecond }
	// A short stall timeout keeps the hang cases quick. The others keep
	// the default: a 10 MB line can take longer than 300 ms to cross a
	// loaded machine, which would end its turn with a stall instead.
	fastStall := func(dc *daemon.Config, sc *scripted.Config) {
		fast(dc, sc)
		sc.StallTimeout = 300 * time.Millisecond
	}
	cases := []struct {
		name  string
		steps []map[string]any
		// code is the error event's code; "" means the turn completes.
		code string
		// exitCode is session_end's exit code when the CLI's process ends.
		exitCode *int
	}{
		{"crash", []map[string]any{{"delta": "partial"}, {"crash": 3}}, runtimes.CodeCLIExited, ptr(3)},
		{"hang", []map[string]any{{"delta": "partial"}, {"hang": true}}, runtimes.CodeStallTimeout, ptr(0)},
		{"hang deaf to SIGTERM", []map[string]any{{"ignore_term": true}, {"hang": true}}, runtimes.CodeStallTimeout, ptr(-1)},
		{"garbage", []map[string]any{{"garbage": "}{ not json"}, {"message": "still here"}}, "", nil},
		{"10 MB line", []map[string]any{{"delta": "partial"}, {"bigline": 10 << 20}}, runtimes.CodeOutputTooLarge, nil},
		{"failure", []map[string]any{{"fail": "the model said no"}}, runtimes.CodeRuntimeError, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opt := fast
			if tc.code == runtimes.CodeStallTimeout {
				opt = fastStall
			}
			e := startEnv(t, opt)
			ctx := testCtx(t)
			c := e.connect(ctx)
			w := e.workspace(ctx, c)
			id := startSession(t, ctx, c, w)

			send(t, ctx, c, id, script(tc.steps...))
			end, err := c.Await(ctx, func(n Notification) bool { return n.Header().SessionID == id && isTerminal(n) })
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.code == "" && end.Type() != rpc.EventTurnCompleted:
				t.Errorf("turn ended with %s, want turn_completed", end)
			case tc.code != "":
				var ev rpc.ErrorEvent
				if err := end.Decode(&ev); err != nil || end.Type() != rpc.EventError || ev.Code != tc.code || ev.Message == "" {
					t.Errorf("turn ended with %s, want an error event with code %s", end, tc.code)
				}
			}
			if tc.code == runtimes.CodeCLIExited && !strings.Contains(end.Field("message").(string), "exit code 3") {
				t.Errorf("error message %q does not give the exit code", end.Field("message"))
			}
			if tc.code != "" && tc.code != runtimes.CodeRuntimeError {
				// The CLI's process is gone, and says so.
				var se rpc.SessionEndEvent
				if err := await(t, ctx, c, rpc.EventSessionEnd, id).Decode(&se); err != nil {
					t.Fatal(err)
				}
				if tc.exitCode != nil && (se.ExitCode == nil || *se.ExitCode != *tc.exitCode) {
					t.Errorf("session_end exit code %v, want %d", deref(se.ExitCode), *tc.exitCode)
				}
				awaitNoChildren(t, ctx, w.Path)
			}
			if st := state(t, ctx, c, id); st.Activity != rpc.ActivityIdle || st.WaitingForInput {
				t.Errorf("session/state after the fault = %+v, want idle", st)
			}

			// The next turn works (resuming the CLI if it died) and bounds
			// the faulty turn's events.
			send(t, ctx, c, id, "after")
			await(t, ctx, c, rpc.EventTurnCompleted, id)
			evs := c.SessionEvents(id)
			var turn []Notification
			for _, n := range evs {
				if n.Type() == rpc.EventMessage && n.Field("type") == "user" && len(turn) > 0 {
					break // the next turn's prompt
				}
				if n.Type() == rpc.EventMessage || len(turn) > 0 {
					turn = append(turn, n)
				}
			}
			if got := count(turn, isTerminal); got != 1 {
				t.Errorf("the faulty turn has %d terminal events: %v", got, types(turn))
			}
			c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, nil)
			awaitNoChildren(t, ctx, w.Path)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
