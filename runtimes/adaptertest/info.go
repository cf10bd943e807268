package adaptertest

// The Info and Detect checks: what an adapter says of itself, and of a
// CLI that is not installed.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func (c *suite) info(t *testing.T) {
	// Info does not look at the machine: an adapter made for the test is enough.
	e := c.env(t)
	info := e.Adapter.Info()
	if info.ID == "" || info.DisplayName == "" {
		t.Errorf("Info has ID %q and DisplayName %q; both must be set", info.ID, info.DisplayName)
	}
	if len(info.PermissionModes) == 0 {
		t.Error("Info.PermissionModes is empty: the registry would offer no mode")
	}
	known := rpc.PermissionMode("").Enum()
	for i, m := range info.PermissionModes {
		if !slices.Contains(known, string(m)) {
			t.Errorf("permission mode %q is not one of the protocol's %v", m, known)
		}
		if slices.Contains(info.PermissionModes[:i], m) {
			t.Errorf("permission mode %q is listed twice", m)
		}
	}
	if !info.AcceptsPermissionMode("") {
		t.Error(`AcceptsPermissionMode("") is false: no mode (the runtime's default) must always be accepted`)
	}
	// A running session switches only to modes it could start in.
	for _, m := range info.ConfigureModes {
		if !slices.Contains(info.PermissionModes, m) {
			t.Errorf("configure mode %q is not one of the runtime's permission modes %v", m, info.PermissionModes)
		}
	}
	if len(info.ConfigureModes) > 0 && !info.Features.Configure {
		t.Errorf("ConfigureModes %v without Features.Configure", info.ConfigureModes)
	}
	f := info.Features
	// Start returns the final id (the Adapter contract), so the registry
	// must never make clients wait for a resolution.
	if !f.IDKnownAtStart {
		t.Error("Features.IDKnownAtStart is false, but Start returns the final session id")
	}
	if f.Resume && e.Adapter.Transcripts() == nil {
		t.Error("Features.Resume without Transcripts: a resumed id cannot be checked or listed")
	}
	if f.Permissions && c.h.Permission == "" {
		t.Error("Features.Permissions, but the harness has no prompt that makes the CLI ask")
	}
	if f.InteractiveQuestions && c.h.Question == "" {
		t.Error("Features.InteractiveQuestions, but the harness has no prompt that makes the CLI ask a question")
	}
}

func (c *suite) detect(t *testing.T) {
	e := c.env(t)
	av := noPanic(t, "Detect", func() runtimes.Availability { return e.Adapter.Detect(c.ctx(t)) })
	if !av.Usable() || av.Path == "" || av.Version == "" {
		t.Errorf("Detect of the harness's CLI = %+v, want usable with a path and a version", av)
	}

	// A Detect whose ctx ends must answer about then, whatever the CLI
	// does. The slack covers a child's pipes draining after it is killed.
	const slack = 3 * time.Second
	for _, d := range []time.Duration{0, 20 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		began := time.Now()
		noPanic(t, "Detect", func() runtimes.Availability { return e.Adapter.Detect(ctx) })
		if took := time.Since(began); took > d+slack {
			t.Errorf("Detect with a ctx of %v returned after %v", d, took)
		}
		cancel()
	}

	if c.h.Missing != nil {
		av := noPanic(t, "Detect", func() runtimes.Availability { return c.h.Missing(t).Detect(c.ctx(t)) })
		if av.Usable() || av.Reason == "" {
			t.Errorf("Detect of a missing CLI = %+v, want unusable with a reason", av)
		}
	}
}

func noPanic[T any](t *testing.T, what string, f func() T) (v T) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	return f()
}
