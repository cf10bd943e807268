package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

func TestLiveOffer(t *testing.T) {
	l := newLive(t, fakeopenai.Echo)
	offer, err := l.a.Offer(codextest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	// config.toml names the model (codextest.Model): new threads run it.
	if offer.DefaultModel != codextest.Model {
		t.Errorf("default model %q, want the configured %q", offer.DefaultModel, codextest.Model)
	}
	def, ok := offer.Find(codextest.Model)
	if !ok || len(def.Efforts) == 0 || !slices.Contains(def.Efforts, def.DefaultEffort) {
		t.Errorf("the configured model is offered as %+v", def)
	}
	if offer.DefaultEffort != def.DefaultEffort {
		t.Errorf("default effort %q, want the model's %q", offer.DefaultEffort, def.DefaultEffort)
	}
	if len(offer.Models) < 2 {
		t.Errorf("model/list gave %d models", len(offer.Models))
	}
	if n := len(l.api.Requests()); n != 0 {
		t.Errorf("asking the offer made %d requests to the model API", n)
	}
}

// A model and an effort asked with a turn reach the API in that turn, and
// stay for the next.
func TestLiveConfigureNextTurn(t *testing.T) {
	l := newLive(t, commands)
	offer, err := l.a.Offer(codextest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	var other runtimes.Model
	for _, m := range offer.Models {
		if m.ID != codextest.Model && slices.Contains(m.Efforts, "high") {
			other = m
			break
		}
	}
	if other.ID == "" {
		t.Fatalf("no second model with effort high in %+v", offer.Models)
	}

	s, evs := l.start(t, runtimes.StartRequest{Effort: "low"})
	send(t, s, "one")
	terminalFrom(t, evs, 0)
	if r := l.api.LastResponseRequest(t); r.Model != codextest.Model || r.Effort() != "low" {
		t.Errorf("turn one: model %q effort %q, want %s and low (start's effort)", r.Model, r.Effort(), codextest.Model)
	}

	ctx := codextest.Context(t)
	n := evs.len()
	if err := s.Send(ctx, runtimes.Turn{Prompt: "two", Model: other.ID, Effort: "high"}); err != nil {
		t.Fatal(err)
	}
	terminalFrom(t, evs, n)
	if r := l.api.LastResponseRequest(t); r.Model != other.ID || r.Effort() != "high" {
		t.Errorf("turn two: model %q effort %q, want %s and high", r.Model, r.Effort(), other.ID)
	}

	n = evs.len()
	send(t, s, "three")
	terminalFrom(t, evs, n)
	if r := l.api.LastResponseRequest(t); r.Model != other.ID || r.Effort() != "high" {
		t.Errorf("turn three kept model %q effort %q, want %s and high", r.Model, r.Effort(), other.ID)
	}
}

// A permission mode asked with a turn changes what Codex asks before a
// command: in bypassPermissions the command runs without a prompt.
func TestLiveConfigurePermissionMode(t *testing.T) {
	l := newLive(t, commands)
	s, evs := l.start(t, runtimes.StartRequest{PermissionMode: rpc.PermissionDefault})
	ctx := codextest.Context(t)
	if err := s.Send(ctx, runtimes.Turn{Prompt: "RUN touch bypassed.txt", PermissionMode: rpc.PermissionBypass}); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	if c := count[runtimes.PromptRequested](evs.all()); c != 0 {
		t.Errorf("bypassPermissions still asked %d times", c)
	}
	if _, err := os.Stat(filepath.Join(l.ws, "bypassed.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}

	// Back to default: the next command is asked about again.
	n := evs.len()
	if err := s.Send(ctx, runtimes.Turn{Prompt: "RUN touch asked.txt", PermissionMode: rpc.PermissionDefault}); err != nil {
		t.Fatal(err)
	}
	asked := awaitFrom(t, evs, n, func(runtimes.PromptRequested) bool { return true })
	if err := s.Respond(ctx, asked.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatal(err)
	}
	terminalFrom(t, evs, n)

	// Plan mode is a thread's from its start.
	if err := s.Send(ctx, runtimes.Turn{Prompt: "x", PermissionMode: rpc.PermissionPlan}); err == nil ||
		!strings.Contains(err.Error(), "plan mode") {
		t.Errorf("switching to plan: %v", err)
	}
}
