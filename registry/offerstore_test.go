package registry

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// keeping is a registry of one offering runtime whose CLI is the file bin,
// keeping offers in dir, at the time *now.
func keeping(t *testing.T, dir, bin, version string, now *time.Time) (*Registry, *offering) {
	t.Helper()
	a, _, _ := fixture()
	a.avail.Path, a.avail.Version = bin, version
	o := &offering{stub: a, offer: sampleOffer()}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.now = func() time.Time { return *now }
	r.KeepOffers(dir)
	return r, o
}

// fakeCLI writes an executable file standing for a CLI and returns its
// path through a symlink, as npm's node_modules/.bin has it.
func fakeCLI(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	real := filepath.Join(dir, "cli.js")
	if err := os.WriteFile(real, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "alpha")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// A restarted daemon reads what the same CLI offered from its last run,
// without asking it, and answers with it.
func TestOfferKeptAcrossRestarts(t *testing.T) {
	dir, bin := t.TempDir(), fakeCLI(t, "#!/bin/sh\n")
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	first, o1 := keeping(t, dir, bin, "1.2.3", &now)
	first.Snapshot(context.Background())
	if o1.asked.Load() != 1 {
		t.Fatalf("first run asked %d times", o1.asked.Load())
	}
	fi, err := os.Stat(filepath.Join(dir, "alpha.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept offer file: %v %v", err, fi)
	}
	first.Close()

	now = now.Add(OfferTTL - time.Minute)
	second, o2 := keeping(t, dir, bin, "1.2.3", &now)
	o2.offer.DefaultModel = "small" // what asking again would say
	rec := second.Snapshot(context.Background()).Runtimes[0]
	if o2.asked.Load() != 0 {
		t.Errorf("the restarted registry asked the unchanged CLI %d times", o2.asked.Load())
	}
	if rec.DefaultModel != "big" || len(rec.Models) != 2 || rec.Models[0].Aliases[0] != "big-2" || len(rec.Commands) != 1 {
		t.Errorf("record from the kept offer: %+v", rec)
	}
}

// A kept offer is not used for another binary at the same path, another
// version, an answer older than OfferTTL or dated in the future, nor when
// the file is damaged: the CLI is asked, and its answer kept instead.
func TestKeptOfferNotUsedWhenStale(t *testing.T) {
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		version string
		later   time.Duration
		change  func(t *testing.T, dir, bin string)
	}{
		{name: "binary replaced", version: "1.2.3", change: func(t *testing.T, _, bin string) {
			real, _ := filepath.EvalSymlinks(bin)
			if err := os.WriteFile(real, []byte("#!/bin/sh\n# another build\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "binary touched", version: "1.2.3", change: func(t *testing.T, _, bin string) {
			real, _ := filepath.EvalSymlinks(bin)
			if err := os.Chtimes(real, start, start.Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "other version", version: "1.2.4"},
		{name: "old", version: "1.2.3", later: OfferTTL + time.Second},
		{name: "from the future", version: "1.2.3", later: -time.Minute},
		{name: "damaged file", version: "1.2.3", change: func(t *testing.T, dir, _ string) {
			if err := os.WriteFile(filepath.Join(dir, "alpha.json"), []byte(`{"binary":`), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, bin := t.TempDir(), fakeCLI(t, "#!/bin/sh\n")
			now := start
			first, _ := keeping(t, dir, bin, "1.2.3", &now)
			first.Snapshot(context.Background())
			first.Close()
			if c.change != nil {
				c.change(t, dir, bin)
			}
			now = start.Add(c.later)
			second, o := keeping(t, dir, bin, c.version, &now)
			o.offer.DefaultModel = "small"
			if rec := second.Snapshot(context.Background()).Runtimes[0]; o.asked.Load() != 1 || rec.DefaultModel != "small" {
				t.Fatalf("asked %d times, default model %q: want the CLI asked once and its answer", o.asked.Load(), rec.DefaultModel)
			}
			second.Close()
			// The new answer is the one kept now.
			third, o3 := keeping(t, dir, bin, c.version, &now)
			if rec := third.Snapshot(context.Background()).Runtimes[0]; o3.asked.Load() != 0 || rec.DefaultModel != "small" {
				t.Errorf("after the new answer: asked %d times, default model %q", o3.asked.Load(), rec.DefaultModel)
			}
		})
	}
}

// Without KeepOffers, or for a CLI whose binary cannot be identified,
// nothing is written and every new registry asks.
func TestOfferNotKeptWithoutIdentity(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	for range 2 {
		r, o := keeping(t, dir, filepath.Join(dir, "no-such-cli"), "1.2.3", &now)
		r.Snapshot(context.Background())
		if o.asked.Load() != 1 {
			t.Errorf("asked %d times", o.asked.Load())
		}
		r.Close()
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("offer dir holds %v (%v), want nothing", entries, err)
	}
}
