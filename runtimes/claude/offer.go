package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Offer asks the CLI what it offers, without a model request: a stream-json
// process answers the `initialize` control request with its models (each
// with the efforts it takes) and slash commands, and `get_settings` with
// the effort and model a session gets by default. Run in the user's home,
// so the commands are those offered everywhere; a workspace can add its
// own (CommandsPerSession).
func (a *Adapter) Offer(ctx context.Context) (offer runtimes.Offer, err error) {
	defer func() {
		if err != nil { // the registry lists no models then, and refuses none
			a.log.Warn("claude: could not ask the CLI what it offers", zap.Error(err))
		}
	}()
	p, err := kit.StartProbe(a.cfg.Bin, []string{"-p", "--input-format", "stream-json",
		"--output-format", "stream-json", "--verbose"}, kit.Home(a.cfg.Env), a.cfg.Env)
	if err != nil {
		return runtimes.Offer{}, fmt.Errorf("claude: offer: %w", err)
	}
	defer p.Close()
	var init initializeAnswer
	if err := controlCall(ctx, p, "cdevd-offer-init", map[string]string{"subtype": "initialize"}, &init); err != nil {
		return runtimes.Offer{}, err
	}
	var settings struct {
		Applied struct {
			Model  string `json:"model"`
			Effort string `json:"effort"`
		} `json:"applied"`
	}
	if err := controlCall(ctx, p, "cdevd-offer-settings", map[string]string{"subtype": "get_settings"}, &settings); err != nil {
		return runtimes.Offer{}, err
	}
	return init.offer(settings.Applied.Model, settings.Applied.Effort), nil
}

// initializeAnswer is what the CLI answers `initialize` with, the parts
// cdevd reads (2.1.197).
type initializeAnswer struct {
	Commands []struct {
		Name         string `json:"name"`
		Description  string `json:"description"`
		ArgumentHint string `json:"argumentHint"`
	} `json:"commands"`
	Models []struct {
		Value                 string   `json:"value"`
		ResolvedModel         string   `json:"resolvedModel"`
		DisplayName           string   `json:"displayName"`
		Description           string   `json:"description"`
		SupportsEffort        bool     `json:"supportsEffort"`
		SupportedEffortLevels []string `json:"supportedEffortLevels"`
	} `json:"models"`
}

// offer is the answer as an Offer. The default model is "default" (the
// CLI's own value for it); appliedModel, the id it resolves to now, is an
// alias of it. Every model that takes effort starts at appliedEffort.
func (ans initializeAnswer) offer(appliedModel, appliedEffort string) runtimes.Offer {
	o := runtimes.Offer{DefaultEffort: appliedEffort, CommandsPerSession: true}
	for _, m := range ans.Models {
		model := runtimes.Model{ID: m.Value, DisplayName: m.DisplayName, Description: m.Description}
		for _, alias := range []string{m.ResolvedModel, stripContext(m.ResolvedModel)} {
			if alias != "" && alias != m.Value && !slices.Contains(model.Aliases, alias) {
				model.Aliases = append(model.Aliases, alias)
			}
		}
		if m.SupportsEffort {
			model.Efforts = append(model.Efforts, m.SupportedEffortLevels...)
			model.DefaultEffort = appliedEffort
		}
		if o.DefaultModel == "" && (m.Value == "default" || m.ResolvedModel == appliedModel) {
			o.DefaultModel = m.Value
		}
		o.Models = append(o.Models, model)
	}
	for _, c := range ans.Commands {
		o.Commands = append(o.Commands, runtimes.Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
	}
	if !o.HasEfforts() {
		o.DefaultEffort = ""
	}
	return o
}

// stripContext is a resolved id without its context-window suffix
// ("claude-opus-4-8[1m]" → "claude-opus-4-8"), the id the API is sent.
func stripContext(id string) string {
	if i := strings.LastIndexByte(id, '['); i > 0 {
		return id[:i]
	}
	return id
}

// controlCall writes a control request and decodes the success answer's
// response into out.
func controlCall(ctx context.Context, p *kit.Probe, id string, request any, out any) error {
	if err := p.Write(map[string]any{"type": "control_request", "request_id": id, "request": request}); err != nil {
		return fmt.Errorf("claude: offer: %w", err)
	}
	line, err := p.Await(ctx, func(line []byte) bool {
		var h struct {
			Type     string `json:"type"`
			Response struct {
				RequestID string `json:"request_id"`
			} `json:"response"`
		}
		return json.Unmarshal(line, &h) == nil && h.Type == "control_response" && h.Response.RequestID == id
	})
	if err != nil {
		return fmt.Errorf("claude: offer: %w", err)
	}
	var ans struct {
		Response struct {
			Subtype  string          `json:"subtype"`
			Error    string          `json:"error"`
			Response json.RawMessage `json:"response"`
		} `json:"response"`
	}
	if err := json.Unmarshal(line, &ans); err != nil {
		return fmt.Errorf("claude: offer: %w", err)
	}
	if ans.Response.Subtype != "success" {
		return fmt.Errorf("claude: offer: the CLI refused %s: %s", id, ans.Response.Error)
	}
	return json.Unmarshal(ans.Response.Response, out)
}
