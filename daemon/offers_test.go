package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// offeringCLI is a runtime whose CLI (a file of the test's) says what it
// offers, counting the times it is asked.
type offeringCLI struct {
	bin   string
	model string
	asked *atomic.Int32
}

func (o offeringCLI) Info() runtimes.Info {
	return runtimes.Info{ID: "offering", DisplayName: "Offering"}
}
func (o offeringCLI) Detect(context.Context) runtimes.Availability {
	return runtimes.Availability{Installed: true, Path: o.bin, Version: "1.0.0"}
}
func (o offeringCLI) Start(context.Context, runtimes.StartRequest, runtimes.Sink) (runtimes.Session, error) {
	return nil, errors.New("not startable")
}
func (o offeringCLI) Transcripts() runtimes.Transcripts { return nil }
func (o offeringCLI) Offer(context.Context) (runtimes.Offer, error) {
	o.asked.Add(1)
	return runtimes.Offer{Models: []runtimes.Model{{ID: o.model}}, DefaultModel: o.model}, nil
}

// A daemon restarted on the same home answers initialize with what its
// CLI offered in the last run, without asking the unchanged CLI again; a
// daemon of another home asks.
func TestRestartKeepsCLIOffers(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "offering")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	defaultModel := func(home, model string) (string, int32) {
		t.Helper()
		var asked atomic.Int32
		d := start(t, Config{Home: home, Adapters: []runtimes.Adapter{offeringCLI{bin: bin, model: model, asked: &asked}}})
		c, err := dial(t, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Initialized().Capabilities.RuntimeRegistry.Runtimes[0].DefaultModel
		c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		return got, asked.Load()
	}
	home := t.TempDir()
	if got, asked := defaultModel(home, "first"); got != "first" || asked != 1 {
		t.Fatalf("first run: default model %q, asked %d times", got, asked)
	}
	if got, asked := defaultModel(home, "second"); got != "first" || asked != 0 {
		t.Errorf("after a restart: default model %q, asked %d times; want the kept answer, not asked", got, asked)
	}
	if got, asked := defaultModel(t.TempDir(), "second"); got != "second" || asked != 1 {
		t.Errorf("another home: default model %q, asked %d times", got, asked)
	}
}
