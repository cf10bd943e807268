package claude

import (
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
)

func TestLiveOffer(t *testing.T) {
	l := newLive(t)
	offer, err := l.adapter.Offer(claudetest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	sonnet, ok := offer.Find("sonnet")
	if !ok || !slices.Contains(sonnet.Efforts, "low") || !slices.Contains(sonnet.Efforts, "max") {
		t.Errorf("sonnet is not offered with its efforts: %+v", offer.Models)
	}
	if full, ok := offer.Find(strings.TrimSuffix(sonnet.Aliases[0], "[1m]")); !ok || full.ID != "sonnet" {
		t.Errorf("sonnet's full id %v does not find it", sonnet.Aliases)
	}
	if haiku, ok := offer.Find("haiku"); !ok || len(haiku.Efforts) != 0 {
		t.Errorf("haiku (no effort setting) is offered as %+v", haiku)
	}
	if offer.DefaultModel != "default" || offer.DefaultEffort != "high" {
		t.Errorf("defaults: model %q effort %q, want default and high", offer.DefaultModel, offer.DefaultEffort)
	}
	names := make([]string, 0, len(offer.Commands))
	for _, c := range offer.Commands {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "compact") || !slices.Contains(names, "init") {
		t.Errorf("commands %v lack compact and init", names)
	}
	if reqs := l.fake.MessageRequests(); len(reqs) != 0 {
		t.Errorf("asking the offer made %d model requests", len(reqs))
	}
}

func TestLiveStartEffort(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{Model: "sonnet", Effort: "low"})
	send(t, s, "hi")
	terminal(t, evs)
	r := l.fake.LastMessageRequest(t)
	if !strings.HasPrefix(r.Model, "claude-sonnet-") || r.Effort() != "low" {
		t.Errorf("request model %q effort %q, want claude-sonnet-… and low", r.Model, r.Effort())
	}
}

// A model and an effort asked with a turn reach the API from that turn on,
// through the CLI's own control requests, and stay for the next turns.
func TestLiveConfigureNextTurn(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "one")
	terminal(t, evs)
	first := l.fake.LastMessageRequest(t)
	if strings.HasPrefix(first.Model, "claude-haiku-") || first.Effort() == "low" {
		t.Fatalf("the default turn already runs haiku/low: %q %q", first.Model, first.Effort())
	}

	ctx := claudetest.Context(t)
	if err := s.Send(ctx, runtimes.Turn{Prompt: "two", Model: "sonnet", Effort: "low"}); err != nil {
		t.Fatal(err)
	}
	terminal(t, evs)
	if r := l.fake.LastMessageRequest(t); !strings.HasPrefix(r.Model, "claude-sonnet-") || r.Effort() != "low" {
		t.Errorf("turn two: model %q effort %q, want claude-sonnet-… and low", r.Model, r.Effort())
	}

	// The engine passes the whole configuration with every turn: the same
	// values again change nothing, and plan mode is switched to.
	if err := s.Send(ctx, runtimes.Turn{Prompt: "three", Model: "sonnet", Effort: "max", PermissionMode: rpc.PermissionPlan}); err != nil {
		t.Fatal(err)
	}
	terminal(t, evs)
	if r := l.fake.LastMessageRequest(t); !strings.HasPrefix(r.Model, "claude-sonnet-") || r.Effort() != "max" {
		t.Errorf("turn three: model %q effort %q, want claude-sonnet-… and max", r.Model, r.Effort())
	}
	if s.config.mode != rpc.PermissionPlan {
		t.Errorf("mode after turn three: %q", s.config.mode)
	}

	// A mode the CLI refuses fails the send, says why, and leaves the
	// session able to take the next turn.
	n := len(l.fake.MessageRequests())
	err := s.Send(ctx, runtimes.Turn{Prompt: "four", PermissionMode: rpc.PermissionBypass})
	if err == nil || !strings.Contains(err.Error(), "dangerously-skip-permissions") {
		t.Fatalf("switching to bypassPermissions: %v, want the CLI's refusal", err)
	}
	if got := len(l.fake.MessageRequests()); got != n {
		t.Errorf("a refused switch still sent the turn (%d requests, had %d)", got, n)
	}
	send(t, s, "five")
	terminal(t, evs)
	if r := l.fake.LastMessageRequest(t); !strings.HasPrefix(r.Model, "claude-sonnet-") || r.LastUserText() != "five" {
		t.Errorf("turn five: model %q text %q", r.Model, r.LastUserText())
	}
}
