package codex

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Offer asks the app-server, without a model request: `model/list` (every
// page) gives the models with their reasoning efforts and defaults,
// `config/read` the model and effort the user's config.toml chooses, which
// a new thread gets. The app-server runs no slash commands (they are the
// terminal UI's), so none are listed.
func (a *Adapter) Offer(ctx context.Context) (offer runtimes.Offer, err error) {
	defer func() {
		if err != nil { // the registry lists no models then, and refuses none
			a.log.Warn("codex: could not ask the CLI what it offers", zap.Error(err))
		}
	}()
	p, err := kit.StartProbe(a.cfg.Bin, []string{"app-server"}, kit.Home(a.cfg.Env), a.cfg.Env)
	if err != nil {
		return runtimes.Offer{}, fmt.Errorf("codex: offer: %w", err)
	}
	defer p.Close()
	init := map[string]any{"clientInfo": map[string]string{"name": "cdevd", "title": "cdevd", "version": clientVersion}}
	if err := p.Call(ctx, "initialize", init, nil, nil); err != nil {
		return runtimes.Offer{}, fmt.Errorf("codex: offer: %w", err)
	}
	if err := p.Write(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		return runtimes.Offer{}, fmt.Errorf("codex: offer: %w", err)
	}
	var models []listedModel
	cursor := ""
	for page := 0; page < maxModelPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Data       []listedModel `json:"data"`
			NextCursor string        `json:"nextCursor"`
		}
		if err := p.Call(ctx, "model/list", params, &res, nil); err != nil {
			return runtimes.Offer{}, fmt.Errorf("codex: offer: %w", err)
		}
		models = append(models, res.Data...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	var cfg struct {
		Config struct {
			Model  string `json:"model"`
			Effort string `json:"model_reasoning_effort"`
		} `json:"config"`
	}
	if err := p.Call(ctx, "config/read", map[string]any{}, &cfg, nil); err != nil {
		return runtimes.Offer{}, fmt.Errorf("codex: offer: %w", err)
	}
	return offerOf(models, cfg.Config.Model, cfg.Config.Effort), nil
}

// maxModelPages bounds model/list's paging against a CLI that never ends it.
const maxModelPages = 20

// listedModel is one model of model/list's answer (0.169.0), the parts
// cdevd reads.
type listedModel struct {
	ID                        string         `json:"id"`
	Model                     string         `json:"model"`
	DisplayName               string         `json:"displayName"`
	Description               string         `json:"description"`
	IsDefault                 bool           `json:"isDefault"`
	DefaultReasoningEffort    string         `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []listedEffort `json:"supportedReasoningEfforts"`
}

// listedEffort is one of a listed model's reasoning efforts.
type listedEffort struct {
	ReasoningEffort string `json:"reasoningEffort"`
}

// offerOf is the listed models as an Offer. The default model is the one
// config.toml names, else the one Codex marks default; a configured model
// the list lacks is still offered (a thread runs it), with no efforts known.
func offerOf(models []listedModel, configModel, configEffort string) runtimes.Offer {
	var o runtimes.Offer
	for _, m := range models {
		model := runtimes.Model{ID: m.ID, DisplayName: m.DisplayName, Description: m.Description,
			DefaultEffort: m.DefaultReasoningEffort}
		if m.Model != "" && m.Model != m.ID {
			model.Aliases = []string{m.Model}
		}
		for _, e := range m.SupportedReasoningEfforts {
			model.Efforts = append(model.Efforts, e.ReasoningEffort)
		}
		if m.IsDefault && configModel == "" {
			o.DefaultModel = m.ID
		}
		o.Models = append(o.Models, model)
	}
	if configModel != "" {
		o.DefaultModel = configModel
		if _, ok := o.Find(configModel); !ok {
			o.Models = append(o.Models, runtimes.Model{ID: configModel, DisplayName: configModel})
		}
	}
	o.DefaultEffort = configEffort
	if def, ok := o.Find(o.DefaultModel); ok && o.DefaultEffort == "" {
		o.DefaultEffort = def.DefaultEffort
	}
	return o
}
