package contracttests

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A claude.ai subscriber's plan limits and context, end to end: the fake
// API's headers, the real CLI's reports, cdevd's events, session/state,
// usage/limits (kept across a restart), and usage/summary from the
// transcript the CLI wrote; then the refusals of bad params.
func TestUsageThroughCdevd(t *testing.T) {
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with a fake model API; %s targets an external server", envURL)
	}
	fake := fakeanthropic.New(t)
	env := claudetest.Subscriber(claudetest.Env(t, fake.URL()))
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	limit := fakeanthropic.PlanLimit{Status: "allowed_warning", Claim: "five_hour", Abbrev: "5h", Utilization: 0.92,
		Reset: reset, Surpassed: 0.9}
	fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		r := fakeanthropic.Text("ok")
		r.Headers = limit.Headers()
		return r
	})
	home := t.TempDir()
	start := func() *daemon.Daemon {
		return StartDaemon(t, daemon.Config{Home: home, Adapters: []runtimes.Adapter{
			claude.New(claude.Config{Bin: claudetest.Bin(t), Env: env, KillGrace: 2 * time.Second})}})
	}
	d := start()
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, d.URL(), d.Token())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	id, _ := claudeStart(t, ctx, c, w)
	if st := state(t, ctx, c, id); st.Context != nil {
		t.Errorf("context before any model call: %+v", st.Context)
	}
	claudeSend(t, ctx, c, id, "hello")

	var rl rpc.RateLimitsEvent
	if err := await(t, ctx, c, rpc.EventRateLimits, id).Decode(&rl); err != nil {
		t.Fatal(err)
	}
	if len(rl.Windows) != 1 {
		t.Fatalf("rate_limits = %+v", rl)
	}
	win := rl.Windows[0]
	if win.ID != "five_hour" || win.UsedPercent == nil || *win.UsedPercent != 92 || win.Status != rpc.LimitWarning ||
		win.ResetsAt != rpc.FormatTime(reset) || win.WindowMinutes != 300 || win.UpdatedAt == "" || rl.AgentType != claude.ID {
		t.Errorf("rate_limits window = %+v", win)
	}
	ctxEv := await(t, ctx, c, rpc.EventContextUsage, id)
	var cu rpc.ContextUsageEvent
	if err := ctxEv.Decode(&cu); err != nil {
		t.Fatal(err)
	}
	end := await(t, ctx, c, rpc.EventTurnCompleted, id)
	var tc rpc.TurnCompletedEvent
	if err := end.Decode(&tc); err != nil {
		t.Fatal(err)
	}
	if cu.UsedTokens != tc.Usage.InputTokens || cu.WindowTokens <= 0 || ctxEv.Seq() > end.Seq() {
		t.Errorf("context_usage %+v (seq %d), turn_completed %+v (seq %d)", cu, ctxEv.Seq(), tc, end.Seq())
	}
	if want := float64(int64(float64(cu.UsedTokens)*1000/float64(cu.WindowTokens)+0.5)) / 10; cu.UsedPercent != want {
		t.Errorf("used_percent %v, want %v", cu.UsedPercent, want)
	}
	if st := state(t, ctx, c, id); st.Context == nil || *st.Context != cu.ContextUsage {
		t.Errorf("session/state context = %+v, the event said %+v", st.Context, cu.ContextUsage)
	}

	limits := func(c *Client, agent string) []rpc.RuntimeLimits {
		var res rpc.UsageLimitsResult
		c.MustCall(ctx, rpc.MethodUsageLimits, rpc.UsageLimitsParams{AgentType: agent}, &res)
		return res.Runtimes
	}
	for _, agent := range []string{"", claude.ID} {
		got := limits(c, agent)
		if len(got) != 1 || got[0].AgentType != claude.ID || len(got[0].Windows) != 1 || got[0].Windows[0].ID != "five_hour" ||
			*got[0].Windows[0].UsedPercent != 92 {
			t.Errorf("usage/limits %q = %+v", agent, got)
		}
	}

	// The summary reads the transcript, which the CLI finishes writing
	// after its turn's end (a live answer is shown before it is stored):
	// once the process has ended, it is complete.
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: claude.ID}, nil)
	await(t, ctx, c, rpc.EventSessionStopped, id)
	var sum rpc.UsageSummaryResult
	c.MustCall(ctx, rpc.MethodUsageSummary, rpc.UsageSummaryParams{WorkspaceID: w.ID, Days: 1}, &sum)
	today := time.Now().UTC().Format(time.DateOnly)
	if len(sum.Days) != 1 || sum.Days[0].Date != today || sum.Days[0].AgentType != claude.ID || sum.Days[0].WorkspaceID != w.ID ||
		sum.Days[0].Messages != 1 || sum.Days[0].InputTokens != tc.Usage.InputTokens || sum.Total != sum.Days[0].TokenTotals ||
		sum.From != today || sum.To != today {
		t.Errorf("usage/summary = %+v; the turn's usage %+v", sum, tc.Usage)
	}
	// The live turn has a cost, but the transcript the summary reads keeps
	// none: the summary says the cost is unknown rather than zero. Should
	// the CLI start recording one, this fails, and the summary should sum it.
	if sum.Cost != rpc.CostUnknown || tc.CostUSD == nil {
		t.Errorf("usage/summary's cost %q (want unknown); turn_completed's cost_usd %v", sum.Cost, tc.CostUSD)
	}
	stored, err := filepath.Glob(filepath.Join(claudetest.Home(env), ".claude", "projects", "*", id+".jsonl"))
	if err != nil || len(stored) != 1 {
		t.Fatalf("the session's transcript: %v, %v", stored, err)
	}
	costKey := regexp.MustCompile(`"\w*(?i:cost)\w*"\s*:`) // costUSD, total_cost_usd…
	if b, err := os.ReadFile(stored[0]); err != nil || costKey.Match(b) {
		t.Errorf("the transcript records a cost (%q) or could not be read (%v): sum it in usage/summary", costKey.Find(b), err)
	}

	for _, bad := range []struct {
		method string
		params any
		code   int64
	}{
		{rpc.MethodUsageLimits, rpc.UsageLimitsParams{AgentType: "nope"}, rpc.CodeInvalidParams},
		{rpc.MethodUsageSummary, rpc.UsageSummaryParams{Days: 367}, rpc.CodeInvalidParams},
		{rpc.MethodUsageSummary, rpc.UsageSummaryParams{Days: -1}, rpc.CodeInvalidParams},
		{rpc.MethodUsageSummary, map[string]any{"days": "seven"}, rpc.CodeInvalidParams},
		{rpc.MethodUsageSummary, rpc.UsageSummaryParams{WorkspaceID: "ws_nope"}, rpc.CodeWorkspaceNotFound},
	} {
		if _, rerr := c.Call(ctx, bad.method, bad.params); rerr == nil || rerr.Code != bad.code {
			t.Errorf("%s %+v: error %v, want code %d", bad.method, bad.params, rerr, bad.code)
		}
	}
	if got := limits(c, ""); len(got) != 1 {
		t.Errorf("the server is not intact after bad params: %+v", got)
	}

	// The limits outlive the daemon: the CLI says them again only with a
	// model call.
	c.Close()
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, "usage", "limits.json")
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("limits file %v %v, want mode 0600", fi, err)
	}
	d = start()
	c2, _ := Connect(t, ctx, d.URL(), d.Token())
	if got := limits(c2, claude.ID); len(got) != 1 || !sameWindow(got[0].Windows[0], win) {
		t.Errorf("usage/limits after a restart = %+v, want %+v", got, win)
	}
}

func sameWindow(a, b rpc.RateLimitWindow) bool {
	if (a.UsedPercent == nil) != (b.UsedPercent == nil) || a.UsedPercent != nil && *a.UsedPercent != *b.UsedPercent {
		return false
	}
	a.UsedPercent, b.UsedPercent = nil, nil
	return a == b
}
