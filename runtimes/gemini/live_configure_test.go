package gemini

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
)

func TestOffer(t *testing.T) {
	e := newEnv(t)
	e.a.cacheDir = t.TempDir()
	t.Cleanup(func() { e.a.Transcripts().(io.Closer).Close() }) // the chat store's folder watches
	offer, err := e.a.Offer(geminitest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	// settings.json names the model (geminitest.Model): sessions run it,
	// though Gemini's own list of pickable models lacks it.
	if offer.DefaultModel != geminitest.Model {
		t.Errorf("default model %q, want %q", offer.DefaultModel, geminitest.Model)
	}
	for _, id := range []string{geminitest.Model, "gemini-2.5-pro"} {
		if m, ok := offer.Find(id); !ok || len(m.Efforts) != 0 {
			t.Errorf("%s offered as %+v (%v)", id, m, ok)
		}
	}
	if offer.HasEfforts() || offer.DefaultEffort != "" {
		t.Errorf("ACP has no effort setting, yet the offer lists some: %+v", offer)
	}
	names := make([]string, 0, len(offer.Commands))
	for _, c := range offer.Commands {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "memory") || !slices.Contains(names, "init") {
		t.Errorf("commands %v lack memory and init", names)
	}
	if n := len(e.api.GenerateRequests()); n != 0 {
		t.Errorf("asking the offer made %d model requests", n)
	}
	dir, err := e.a.offerDir()
	if err != nil {
		t.Fatal(err)
	}
	if list, err := e.a.Transcripts().List(context.Background(), dir); err != nil || len(list) != 0 {
		t.Errorf("the offer's session is left in Gemini's chats: %+v %v", list, err)
	}
}

// A model and a permission mode asked with a turn apply from that turn on,
// through session/set_model and session/set_mode.
func TestConfigureNextTurn(t *testing.T) {
	e := newEnv(t)
	// Gemini enables yolo only in a folder the user trusts (read when the
	// process starts; TestBypassPermissions shows the refusal).
	trust, _ := json.Marshal(map[string]string{e.dir: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(geminitest.Home(e.cli), ".gemini", "trustedFolders.json"), trust, 0o600); err != nil {
		t.Fatal(err)
	}
	s, rec := e.start(t, runtimes.StartRequest{})
	turn := func(tr runtimes.Turn) []runtimes.Event {
		t.Helper()
		if err := s.Send(context.Background(), tr); err != nil {
			t.Fatal(err)
		}
		return rec.until(t, isTurnEnd)
	}
	lastModel := func() string {
		reqs := e.api.GenerateRequests()
		if len(reqs) == 0 {
			t.Fatal("no request reached the fake")
		}
		return reqs[len(reqs)-1].Model
	}
	turn(runtimes.Turn{Prompt: "one"})
	if m := lastModel(); m != geminitest.Model {
		t.Fatalf("turn one ran %q", m)
	}
	turn(runtimes.Turn{Prompt: "two", Model: "gemini-2.5-pro"})
	if m := lastModel(); m != "gemini-2.5-pro" {
		t.Errorf("turn two ran %q, want gemini-2.5-pro", m)
	}
	turn(runtimes.Turn{Prompt: "three", Model: "gemini-2.5-pro"})
	if m := lastModel(); m != "gemini-2.5-pro" {
		t.Errorf("turn three ran %q, want gemini-2.5-pro kept", m)
	}

	evs := turn(runtimes.Turn{Prompt: "RUN touch bypassed.txt", PermissionMode: rpc.PermissionBypass})
	for _, ev := range evs {
		if _, ok := ev.(runtimes.PromptRequested); ok {
			t.Fatal("bypassPermissions still asked")
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "bypassed.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}

	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN touch asked.txt", PermissionMode: rpc.PermissionDefault}); err != nil {
		t.Fatal(err)
	}
	asked := rec.until(t, isPromptEvent)
	p := asked[len(asked)-1].(runtimes.PromptRequested)
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, isTurnEnd)

	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "x", Effort: "high"}); err == nil {
		t.Error("an effort was taken by an agent that has no effort setting")
	}
}
