package sessions

import (
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/usage"
)

// A runtime's limits become an event only when they change; the context's
// use becomes an event and the session's state, with its percentage.
func TestLimitsAndContextEvents(t *testing.T) {
	a := newMem()
	limits := usage.OpenLimits("", nil)
	defer limits.Close()
	e, wsID := newEngine(t, a, func(c *Config) { c.Limits = limits })
	r := newRecorder("c1")
	id, ms := start(t, e, a, r, wsID)
	if st, err := e.State(id); err != nil || st.Context != nil {
		t.Fatalf("state before any report: %+v %v", st, err)
	}

	forty := 40.0
	report := runtimes.RateLimitsUpdated{Windows: []rpc.RateLimitWindow{{ID: "primary", UsedPercent: &forty, WindowMinutes: 300}}}
	ms.sink(report)
	ev := r.await(t, "event/"+rpc.EventRateLimits)
	ws, _ := ev["windows"].([]any)
	if len(ws) != 1 || ws[0].(map[string]any)["used_percent"] != 40.0 || ev["agent_type"] != "mem" {
		t.Errorf("rate_limits = %v", ev)
	}
	ms.sink(report) // nothing new
	ms.sink(runtimes.ContextUpdated{Context: rpc.ContextUsage{UsedTokens: 50_123, WindowTokens: 200_000}})
	ev = r.await(t, "event/"+rpc.EventContextUsage)
	if ev["used_tokens"] != 50123.0 || ev["window_tokens"] != 200000.0 || ev["used_percent"] != 25.1 || ev["updated_at"] == "" {
		t.Errorf("context_usage = %v", ev)
	}
	if n := r.count("event/" + rpc.EventRateLimits); n != 1 {
		t.Errorf("%d rate_limits events for one change", n)
	}
	st, err := e.State(id)
	if err != nil || st.Context == nil || st.Context.UsedTokens != 50_123 || st.Context.UsedPercent != 25.1 {
		t.Errorf("state context = %+v %v", st.Context, err)
	}
	// A report the CLI could not size (no window): tokens alone.
	ms.sink(runtimes.ContextUpdated{Context: rpc.ContextUsage{UsedTokens: 10}})
	deltas(ms, 1)
	r.await(t, "event/"+rpc.EventMessageDelta)
	if st, _ := e.State(id); st.Context.UsedPercent != 0 || st.Context.WindowTokens != 0 {
		t.Errorf("context without a window = %+v", st.Context)
	}
}
