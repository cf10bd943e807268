package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// commandsWait bounds the wait for the available_commands_update an agent
// sends after session/new (Gemini: at once); an agent that sends none
// offers no commands.
const commandsWait = 5 * time.Second

// AskOffer asks the agent what it offers: ACP says it only in a session, so
// a session is made in dir (session/new answers its models and current
// model, then available_commands_update lists its commands), and its id is
// returned for the caller to clean up whatever the agent stored of it.
// ACP has no reasoning-effort setting: no model lists efforts.
func (a *Adapter) AskOffer(ctx context.Context, dir string) (runtimes.Offer, string, error) {
	p, err := kit.StartProbe(a.spec.Command, a.spec.Args, dir, a.spec.Env)
	if err != nil {
		return runtimes.Offer{}, "", fmt.Errorf("%s: offer: %w", a.spec.ID, err)
	}
	defer p.Close()
	init := sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "cdevd", Title: ptr("cdevd"), Version: clientVersion}}
	if err := p.Call(ctx, "initialize", init, nil, nil); err != nil {
		return runtimes.Offer{}, "", fmt.Errorf("%s: offer: %w", a.spec.ID, err)
	}
	var commands []sdk.AvailableCommand
	gotCommands := false
	notice := func(method string, params json.RawMessage) {
		var n sdk.SessionNotification
		if method == "session/update" && json.Unmarshal(params, &n) == nil && n.Update.AvailableCommandsUpdate != nil {
			commands, gotCommands = n.Update.AvailableCommandsUpdate.AvailableCommands, true
		}
	}
	var res sdk.NewSessionResponse
	if err := p.Call(ctx, "session/new", sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}}, &res, notice); err != nil {
		return runtimes.Offer{}, "", fmt.Errorf("%s: offer: %w", a.spec.ID, err)
	}
	if !gotCommands {
		wctx, cancel := context.WithTimeout(ctx, commandsWait)
		_, _ = p.Await(wctx, func(line []byte) bool {
			var m struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(line, &m) == nil {
				notice(m.Method, m.Params)
			}
			return gotCommands
		})
		cancel()
	}
	return offerOf(res.Models, commands), string(res.SessionId), nil
}

// offerOf is session/new's models and the commands as an Offer. The
// current model is the default; it is offered even when the agent's list
// lacks it (Gemini lists its pickable models, not the one settings.json
// names, which the session runs).
func offerOf(models *sdk.SessionModelState, commands []sdk.AvailableCommand) runtimes.Offer {
	o := runtimes.Offer{CommandsPerSession: true}
	if models != nil {
		for _, m := range models.AvailableModels {
			model := runtimes.Model{ID: string(m.ModelId), DisplayName: m.Name}
			if m.Description != nil {
				model.Description = *m.Description
			}
			o.Models = append(o.Models, model)
		}
		o.DefaultModel = string(models.CurrentModelId)
		if _, ok := o.Find(o.DefaultModel); !ok && o.DefaultModel != "" {
			o.Models = append([]runtimes.Model{{ID: o.DefaultModel, DisplayName: o.DefaultModel}}, o.Models...)
		}
	}
	for _, c := range commands {
		cmd := runtimes.Command{Name: c.Name, Description: c.Description}
		if c.Input != nil && c.Input.Unstructured != nil {
			cmd.ArgumentHint = c.Input.Unstructured.Hint
		}
		o.Commands = append(o.Commands, cmd)
	}
	return o
}
