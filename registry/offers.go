package registry

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// OfferTTL is how long what a CLI said it offers (models, efforts,
// commands) is kept while its version stays the same. Asking means running
// the CLI once more (a second for Claude Code, more for Gemini), so it is
// not asked at every detection; a new version is asked at once.
const OfferTTL = 10 * time.Minute

// OfferTimeout bounds one CLI's answer about its offer.
const OfferTimeout = 30 * time.Second

// offered is the last offer a runtime's CLI gave, and of which version
// and binary (zero when the binary could not be identified).
type offered struct {
	offer   *runtimes.Offer
	version string
	binary  binaryID
	at      time.Time
}

// offerFor is a's offer for the detection avail: the one kept (in memory,
// else on disk: offerstore.go) when it is of the same version and binary
// and fresh, else asked of the CLI now. A CLI that cannot say keeps what
// it said last for this version and binary, or nothing.
//
// The offer is shared, never modified: a status compares it by identity,
// so that an unchanged offer keeps initialize's cached answer.
func (r *Registry) offerFor(ctx context.Context, a runtimes.Adapter, avail runtimes.Availability) *runtimes.Offer {
	o, ok := a.(runtimes.Offerer)
	if !ok || !avail.Usable() {
		return nil
	}
	id := a.Info().ID
	bin, identified := identify(avail.Path)
	r.mu.Lock()
	kept, have := r.offers[id]
	r.mu.Unlock()
	if !have && identified {
		if kept, have = r.loadOffer(id, bin); have {
			r.mu.Lock()
			r.offers[id] = kept
			r.mu.Unlock()
		}
	}
	same := have && kept.version == avail.Version && kept.binary == bin
	// An answer from the future (the clock was set back) is not fresh.
	if age := r.now().Sub(kept.at); same && age >= 0 && age < OfferTTL {
		return kept.offer
	}
	ctx, cancel := context.WithTimeout(ctx, OfferTimeout)
	defer cancel()
	offer, err := o.Offer(ctx)
	if err != nil {
		if same {
			return kept.offer
		}
		return nil
	}
	asked := offered{offer: &offer, version: avail.Version, binary: bin, at: r.now()}
	r.mu.Lock()
	r.offers[id] = asked
	r.mu.Unlock()
	if identified {
		r.saveOffer(id, asked)
	}
	return &offer
}

// Offer is what runtime id's CLI offers, as of its last detection; false
// when it said nothing (not detected yet, or it cannot say).
func (r *Registry) Offer(id string) (runtimes.Offer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.detected[id]
	if !ok || d.offer == nil || !d.offer.Known() {
		return runtimes.Offer{}, false
	}
	return *d.offer, true
}

// wireModels is offer's models as the record lists them.
func wireModels(offer *runtimes.Offer) []rpc.RuntimeModel {
	if offer == nil {
		return nil
	}
	var out []rpc.RuntimeModel
	for _, m := range offer.Models {
		out = append(out, rpc.RuntimeModel{ID: m.ID, DisplayName: m.DisplayName, Description: m.Description,
			Aliases: append([]string(nil), m.Aliases...), Efforts: append([]string{}, m.Efforts...),
			DefaultEffort: m.DefaultEffort})
	}
	return out
}

// Bounds on the commands a record lists: initialize carries every
// runtime's record, and a user's own skills can be many, with long
// descriptions.
const (
	maxCommands           = 200
	maxCommandDescription = 300 // bytes, cut at a rune
)

// wireCommands is offer's slash commands as the record lists them.
func wireCommands(offer *runtimes.Offer) []rpc.SlashCommand {
	if offer == nil {
		return nil
	}
	var out []rpc.SlashCommand
	for _, c := range offer.Commands[:min(len(offer.Commands), maxCommands)] {
		out = append(out, rpc.SlashCommand{Name: c.Name, Description: clip(c.Description, maxCommandDescription),
			ArgumentHint: clip(c.ArgumentHint, maxCommandDescription)})
	}
	return out
}

// clip cuts s to at most n bytes, at a rune's start, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
