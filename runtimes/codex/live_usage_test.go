package codex

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// The plan's windows, sent by the fake API in the x-codex-… headers, reach
// cdevd through the real CLI's account/rateLimits/updated, and the context
// window's use through its thread/tokenUsage/updated, before the turn ends.
func TestLiveRateLimitsAndContext(t *testing.T) {
	reset5h := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	resetWeek := time.Now().Add(100 * time.Hour).Truncate(time.Second)
	var used atomic.Int64
	used.Store(40)
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		reply := fakeopenai.Echo(r)
		reply.Headers = fakeopenai.PlanHeaders(
			fakeopenai.PlanLimit{Window: "primary", UsedPercent: float64(used.Load()), Minutes: 300, Reset: reset5h},
			fakeopenai.PlanLimit{Window: "secondary", UsedPercent: 12, Minutes: 10080, Reset: resetWeek})
		return reply
	})
	s, evs := l.start(t, runtimes.StartRequest{})

	for turn, percent := range []float64{40, 91} {
		used.Store(int64(percent))
		from := evs.len()
		send(t, s, "hello")
		limits := awaitFrom[runtimes.RateLimitsUpdated](t, evs, from, nil)
		want := []rpc.RateLimitWindow{
			{ID: "primary", UsedPercent: &percent, WindowMinutes: 300, ResetsAt: rpc.FormatTime(reset5h), Status: rpc.LimitAllowed},
			{ID: "secondary", UsedPercent: ptr(12.0), WindowMinutes: 10080, ResetsAt: rpc.FormatTime(resetWeek), Status: rpc.LimitAllowed},
		}
		if !sameWindows(limits.Windows, want) {
			t.Errorf("turn %d: windows %s, want %s", turn, windowsString(limits.Windows), windowsString(want))
		}
		c := awaitFrom[runtimes.ContextUpdated](t, evs, from, nil).Context
		done, ok := terminalFrom(t, evs, from).(runtimes.TurnCompleted)
		if !ok {
			t.Fatalf("turn %d did not complete: %s", turn, describe(evs.since(from)))
		}
		if c.UsedTokens != done.Usage.InputTokens+done.Usage.OutputTokens || c.UsedTokens == 0 {
			t.Errorf("turn %d: context %+v, the turn's usage %+v", turn, c, done.Usage)
		}
		// gpt-5.5's window as Codex 0.169.0 knows it.
		if c.WindowTokens != 258_400 {
			t.Errorf("turn %d: context window %d", turn, c.WindowTokens)
		}
		evsAfter := evs.since(from)
		if iCtx, iEnd := index[runtimes.ContextUpdated](evsAfter), index[runtimes.TurnCompleted](evsAfter); iCtx > iEnd {
			t.Errorf("turn %d: the context came after the turn's end: %s", turn, describe(evsAfter))
		}
	}
}

func ptr[T any](v T) *T { return &v }

func index[T runtimes.Event](evs []runtimes.Event) int {
	for i, ev := range evs {
		if _, ok := ev.(T); ok {
			return i
		}
	}
	return -1
}

func sameWindows(a, b []rpc.RateLimitWindow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.UsedPercent == nil) != (y.UsedPercent == nil) || x.UsedPercent != nil && *x.UsedPercent != *y.UsedPercent {
			return false
		}
		x.UsedPercent, y.UsedPercent = nil, nil
		if x != y {
			return false
		}
	}
	return true
}

func windowsString(ws []rpc.RateLimitWindow) string {
	s := ""
	for _, w := range ws {
		p := "nil"
		if w.UsedPercent != nil {
			p = fmt.Sprint(*w.UsedPercent)
		}
		s += fmt.Sprintf("%s{%s%% of %dmin, resets %s, %s} ", w.ID, p, w.WindowMinutes, w.ResetsAt, w.Status)
	}
	return s
}
