package runtimes

import (
	"context"
	"slices"
)

// Offerer is implemented by adapters whose CLI can say, without a model
// request, which models (and their reasoning efforts) and which slash
// commands it offers. The registry asks at detection, keeps the answer
// beside the detected version, and advertises it in the runtime's record;
// the engine refuses a model or effort outside it.
type Offerer interface {
	Offer(ctx context.Context) (Offer, error)
}

// Offer is what a runtime's CLI says it offers.
type Offer struct {
	Models []Model
	// DefaultModel is the model a session gets when none is asked for (the
	// CLI's configuration or its own default); DefaultEffort likewise.
	DefaultModel  string
	DefaultEffort string
	Commands      []Command
	// CommandsPerSession: the CLI may offer other commands once a session
	// runs in a workspace (its own skills, say); Commands are those it
	// offers everywhere.
	CommandsPerSession bool
}

// Model is one model a runtime offers.
type Model struct {
	ID          string // the value to ask for (session/start's model)
	DisplayName string
	Description string
	// Aliases are other names the CLI takes for the same model (Claude
	// Code's "sonnet" runs claude-sonnet-…).
	Aliases []string
	// Efforts are the reasoning-effort levels the model takes, lowest
	// first; none when it takes no effort setting.
	Efforts       []string
	DefaultEffort string
}

// Command is one slash command.
type Command struct {
	Name         string // without the slash
	Description  string
	ArgumentHint string
}

// Known reports whether the offer lists any model: an empty offer (a CLI
// that could not say) refuses nothing.
func (o Offer) Known() bool { return len(o.Models) > 0 }

// Find returns the model called name, by id or alias.
func (o Offer) Find(name string) (Model, bool) {
	for _, m := range o.Models {
		if m.ID == name || slices.Contains(m.Aliases, name) {
			return m, true
		}
	}
	return Model{}, false
}

// ModelIDs lists the models' ids, in order.
func (o Offer) ModelIDs() []string {
	ids := make([]string, 0, len(o.Models))
	for _, m := range o.Models {
		ids = append(ids, m.ID)
	}
	return ids
}

// HasEfforts reports whether any model takes an effort setting.
func (o Offer) HasEfforts() bool {
	for _, m := range o.Models {
		if len(m.Efforts) > 0 {
			return true
		}
	}
	return false
}
