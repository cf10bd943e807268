package codex

import (
	"context"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// The rollout the real app-server writes counts each model call once
// (usage/summary's Codex tokens): its token counts sum to the usage the
// turns reported live, even with the plan's headers on every answer (a
// rate-limit update makes Codex write a token_count again).
func TestLiveTokenCounts(t *testing.T) {
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		reply := fakeopenai.Echo(r)
		reply.Headers = fakeopenai.PlanHeaders(fakeopenai.PlanLimit{Window: "primary", UsedPercent: 40, Minutes: 300, Reset: reset})
		return reply
	})
	started := time.Now()
	s, evs := l.start(t, runtimes.StartRequest{})
	var live rpc.Usage
	for _, prompt := range []string{"hello", "and again"} {
		from := evs.len()
		send(t, s, prompt)
		done, ok := terminalFrom(t, evs, from).(runtimes.TurnCompleted)
		if !ok {
			t.Fatalf("the turn did not complete: %s", describe(evs.since(from)))
		}
		live.InputTokens += done.Usage.InputTokens
		live.OutputTokens += done.Usage.OutputTokens
	}
	// Once the CLI has ended, its rollout is complete.
	closeSession(t, s)

	counts, err := l.a.Transcripts().(runtimes.TokenCounter).TokenCounts(context.Background(), l.ws, s.ID(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var stored rpc.Usage
	for _, c := range counts {
		stored.InputTokens += c.Usage.InputTokens + c.Usage.CacheReadInputTokens // a live turn's input includes the cached (notify.go)
		stored.OutputTokens += c.Usage.OutputTokens
		if c.At.Before(started.Add(-time.Second)) || c.At.After(time.Now()) {
			t.Errorf("a count recorded at %v, outside the test", c.At)
		}
	}
	if len(counts) != 2 || stored.InputTokens != live.InputTokens || stored.OutputTokens != live.OutputTokens || live.InputTokens == 0 {
		t.Fatalf("%d counts summing to %+v; the two turns reported %+v", len(counts), stored, live)
	}
}
