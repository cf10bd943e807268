package usage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

func pct(v float64) *float64 { return &v }

// Reports merge by window id; a sparse one keeps what it leaves out; a
// report that says nothing new is not a change; a new period drops the old
// figure.
func TestLimitsMerge(t *testing.T) {
	l := OpenLimits("", nil)
	defer l.Close()
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	const r1, r2 = "2026-11-27T12:00:00.000Z", "2026-11-27T17:00:00.000Z"

	ws, changed := l.Observe("codex", []rpc.RateLimitWindow{
		{ID: "secondary", UsedPercent: pct(10), WindowMinutes: 10080, ResetsAt: r2, Status: rpc.LimitAllowed},
		{ID: "primary", UsedPercent: pct(40), WindowMinutes: 300, ResetsAt: r1, Status: rpc.LimitAllowed},
	}, at)
	if !changed || len(ws) != 2 || ws[0].ID != "primary" || ws[1].ID != "secondary" || ws[0].UpdatedAt != rpc.FormatTime(at) {
		t.Fatalf("first report: %v %+v", changed, ws)
	}
	if _, changed := l.Observe("codex", []rpc.RateLimitWindow{{ID: "primary", UsedPercent: pct(40), ResetsAt: r1}}, at.Add(time.Minute)); changed {
		t.Error("the same figures again count as a change")
	}
	ws, changed = l.Observe("codex", []rpc.RateLimitWindow{{ID: "primary", UsedPercent: pct(55)}}, at.Add(2*time.Minute))
	if !changed || *ws[0].UsedPercent != 55 || ws[0].WindowMinutes != 300 || ws[0].ResetsAt != r1 ||
		ws[0].UpdatedAt != rpc.FormatTime(at.Add(2*time.Minute)) || *ws[1].UsedPercent != 10 {
		t.Errorf("sparse report: %v %+v", changed, ws)
	}
	// Claude Code's "allowed" report of a new period has no utilization.
	ws, _ = l.Observe("codex", []rpc.RateLimitWindow{{ID: "primary", ResetsAt: r2, Status: rpc.LimitAllowed}}, at)
	if ws[0].UsedPercent != nil || ws[0].ResetsAt != r2 {
		t.Errorf("a new period kept the old figure: %+v", ws[0])
	}
	l.Observe("claude", []rpc.RateLimitWindow{{ID: "five_hour", Status: rpc.LimitAllowed}, {ID: ""}}, at)
	all := l.Read("")
	if len(all) != 2 || all[0].AgentType != "claude" || len(all[0].Windows) != 1 || all[1].AgentType != "codex" {
		t.Errorf("read all = %+v", all)
	}
	if one := l.Read("claude"); len(one) != 1 || one[0].AgentType != "claude" {
		t.Errorf("read claude = %+v", one)
	}
	if none := l.Read("gemini"); none == nil || len(none) != 0 {
		t.Errorf("read gemini = %#v, want an empty list", none)
	}
	// What Read returns is the caller's.
	all[0].Windows[0].ID = "changed"
	if l.Read("claude")[0].Windows[0].ID != "five_hour" {
		t.Error("Read shares its windows with the caller")
	}
}

// The limits are written to their file (0600) by Close at the latest, and
// read back by the next daemon; a broken file is ignored, not fatal.
func TestLimitsPersist(t *testing.T) {
	file := filepath.Join(t.TempDir(), "usage", "limits.json")
	l := OpenLimits(file, nil)
	l.Observe("claude", []rpc.RateLimitWindow{{ID: "five_hour", UsedPercent: pct(92), Status: rpc.LimitWarning}}, time.Now())
	l.Close()
	l.Close() // twice is fine
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file %v %v", fi, err)
	}
	again := OpenLimits(file, nil)
	got := again.Read("claude")
	again.Close()
	if len(got) != 1 || *got[0].Windows[0].UsedPercent != 92 {
		t.Errorf("read back %+v", got)
	}

	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := OpenLimits(file, nil)
	defer broken.Close()
	if got := broken.Read(""); len(got) != 0 {
		t.Errorf("a broken file gave %+v", got)
	}
}
