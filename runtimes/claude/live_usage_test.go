package claude

import (
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A claude.ai subscriber's plan limits, sent by the fake API in its
// headers, reach cdevd through the real CLI's rate_limit_event: first the
// window and its reset, then, once a warning threshold is crossed, how much
// of it is used.
func TestLiveRateLimits(t *testing.T) {
	l := newLive(t)
	l.adapter = New(Config{Bin: claudetest.Bin(t), Env: claudetest.Subscriber(claudetest.Env(t, l.fake.URL())),
		KillGrace: 2 * time.Second, Logger: zaptest.NewLogger(t)})
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	limit := fakeanthropic.PlanLimit{Status: "allowed", Claim: "five_hour", Abbrev: "5h", Utilization: 0.4, Reset: reset}
	l.fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		r := fakeanthropic.Text("ok")
		r.Headers = limit.Headers()
		return r
	})
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "first")
	first := await[runtimes.RateLimitsUpdated](t, evs, nil)
	want := rpc.RateLimitWindow{ID: "five_hour", WindowMinutes: 300, ResetsAt: rpc.FormatTime(reset), Status: rpc.LimitAllowed}
	if len(first.Windows) != 1 || first.Windows[0] != want {
		t.Fatalf("first report %+v, want %+v", first.Windows, want)
	}
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("first turn did not complete: %s", describe(evs.all()))
	}

	limit.Status, limit.Utilization, limit.Surpassed = "allowed_warning", 0.92, 0.9
	send(t, s, "second")
	second := await[runtimes.RateLimitsUpdated](t, evs, nil)
	w := second.Windows[0]
	if len(second.Windows) != 1 || w.ID != "five_hour" || w.Status != rpc.LimitWarning || w.UsedPercent == nil ||
		*w.UsedPercent != 92 || w.ResetsAt != rpc.FormatTime(reset) {
		t.Fatalf("warning report %+v", second.Windows)
	}
	terminal(t, evs)
	for _, r := range l.fake.MessageRequests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+claudetest.SubscriberToken {
			t.Errorf("the CLI called the API as %q, not as the subscriber", got)
		}
	}
}

// The context window's use comes with every turn's end, before it: the
// tokens of the turn's last model call, in its model's window. An API key
// has no plan limits: the CLI ignores the headers and nothing is reported.
func TestLiveContextUsage(t *testing.T) {
	l := newLive(t)
	limit := fakeanthropic.PlanLimit{Status: "allowed_warning", Claim: "five_hour", Abbrev: "5h", Utilization: 0.95,
		Reset: time.Now().Add(time.Hour), Surpassed: 0.9}
	l.fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		r := fakeanthropic.Text("ok")
		r.Headers = limit.Headers()
		return r
	})
	s, evs := l.start(runtimes.StartRequest{})
	var used []int64
	for _, prompt := range []string{"one", "two, a longer prompt than the first one was"} {
		send(t, s, prompt)
		c := await[runtimes.ContextUpdated](t, evs, nil).Context
		done, ok := terminal(t, evs).(runtimes.TurnCompleted)
		if !ok {
			t.Fatalf("turn did not complete: %s", describe(evs.all()))
		}
		// One model call: the result's usage is that call's.
		if c.UsedTokens <= 0 || c.UsedTokens != done.Usage.InputTokens+done.Usage.CacheCreationInputTokens+done.Usage.CacheReadInputTokens {
			t.Errorf("context %+v, the turn's usage %+v", c, done.Usage)
		}
		if c.WindowTokens != 200_000 && c.WindowTokens != 1_000_000 {
			t.Errorf("context window %d, not one of Claude's", c.WindowTokens)
		}
		used = append(used, c.UsedTokens)
	}
	if used[1] <= used[0] {
		t.Errorf("the context did not grow from one turn to the next: %v", used)
	}
	if n := count[runtimes.RateLimitsUpdated](evs.all()); n != 0 {
		t.Errorf("%d rate-limit reports for an API key login", n)
	}
}
