package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// offering is a stub whose CLI says what it offers.
type offering struct {
	*stub
	offer runtimes.Offer
	err   error
	asked atomic.Int32
}

func (o *offering) Offer(context.Context) (runtimes.Offer, error) {
	o.asked.Add(1)
	return o.offer, o.err
}

func sampleOffer() runtimes.Offer {
	return runtimes.Offer{
		Models: []runtimes.Model{
			{ID: "big", DisplayName: "Big", Aliases: []string{"big-2"}, Efforts: []string{"low", "high"}, DefaultEffort: "high"},
			{ID: "small", DisplayName: "Small"},
		},
		DefaultModel: "big", DefaultEffort: "high",
		Commands:           []runtimes.Command{{Name: "compact", Description: "Compact the context", ArgumentHint: "[focus]"}},
		CommandsPerSession: true,
	}
}

func TestOfferInRecord(t *testing.T) {
	a, _, _ := fixture()
	a.info.Features.Configure = true
	o := &offering{stub: a, offer: sampleOffer()}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := r.Snapshot(context.Background()).Runtimes[0]
	if len(rec.Models) != 2 || rec.Models[0].ID != "big" || len(rec.Models[0].Efforts) != 2 ||
		rec.Models[0].Aliases[0] != "big-2" || rec.Models[1].Efforts == nil || len(rec.Models[1].Efforts) != 0 {
		t.Errorf("models %+v", rec.Models)
	}
	if rec.DefaultModel != "big" || rec.DefaultEffort != "high" || !rec.CommandsPerSession ||
		len(rec.Commands) != 1 || rec.Commands[0] != (rpc.SlashCommand{Name: "compact", Description: "Compact the context", ArgumentHint: "[focus]"}) {
		t.Errorf("record %+v", rec)
	}
	if !rec.SupportsConfigure || rec.Methods.Configure != rpc.MethodSessionConfigure {
		t.Errorf("configure: %v %q", rec.SupportsConfigure, rec.Methods.Configure)
	}
	if got, ok := r.Offer("alpha"); !ok || got.DefaultModel != "big" {
		t.Errorf("Offer: %+v %v", got, ok)
	}
}

// The CLI is asked once per version while the answer is fresh, again when
// its version changes or the answer is old; an answer that fails keeps the
// last one of the same version.
func TestOfferAskedPerVersion(t *testing.T) {
	a, _, _ := fixture()
	o := &offering{stub: a, offer: sampleOffer()}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return now }
	r.Snapshot(context.Background())
	now = now.Add(DetectTTL + time.Second) // a new detection, same version
	r.run(o)
	if n := o.asked.Load(); n != 1 {
		t.Errorf("asked %d times for one version", n)
	}
	a.avail.Version = "1.2.4"
	o.offer.DefaultModel = "small"
	r.run(o)
	if got, _ := r.Offer("alpha"); o.asked.Load() != 2 || got.DefaultModel != "small" {
		t.Errorf("after a new version: asked %d, default %q", o.asked.Load(), got.DefaultModel)
	}
	now = now.Add(OfferTTL + time.Second)
	o.err = errors.New("no answer")
	r.run(o)
	if got, ok := r.Offer("alpha"); o.asked.Load() != 3 || !ok || got.DefaultModel != "small" {
		t.Errorf("a failed answer: asked %d, kept %+v %v", o.asked.Load(), got, ok)
	}
	a.avail.Version = "1.3.0"
	r.run(o)
	if _, ok := r.Offer("alpha"); ok {
		t.Error("a failed answer of a new version kept the old version's offer")
	}
}

// A runtime that cannot be used is not asked, and lists nothing.
func TestOfferOfUnusableRuntime(t *testing.T) {
	_, _, c := fixture()
	o := &offering{stub: c, offer: sampleOffer()}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := r.Snapshot(context.Background()).Runtimes[0]
	if o.asked.Load() != 0 || rec.Models != nil || rec.Commands != nil {
		t.Errorf("asked %d, record %+v", o.asked.Load(), rec)
	}
	if _, ok := r.Offer("gamma"); ok {
		t.Error("Offer of a missing CLI")
	}
}

// A record's commands are bounded: many, or long, are cut.
func TestCommandsBounded(t *testing.T) {
	o := runtimes.Offer{}
	for i := range maxCommands + 5 {
		o.Commands = append(o.Commands, runtimes.Command{Name: fmt.Sprint("c", i), Description: strings.Repeat("é", maxCommandDescription)})
	}
	got := wireCommands(&o)
	if len(got) != maxCommands {
		t.Errorf("%d commands listed", len(got))
	}
	d := got[0].Description
	if len(d) > maxCommandDescription+len("…") || !utf8.ValidString(d) || !strings.HasSuffix(d, "…") {
		t.Errorf("a long description listed as %d bytes %q…", len(d), d[:20])
	}
}
