package rpc

import "fmt"

// MethodSessionConfigure changes a running session's model, effort or
// permission mode from its next turn on.
const MethodSessionConfigure = "session/configure"

// RuntimeModel is one model a runtime offers, as its CLI lists it.
type RuntimeModel struct {
	ID            string   `json:"id" doc:"The value for model (session/start, session/send, session/configure)."`
	DisplayName   string   `json:"displayName"`
	Description   string   `json:"description,omitempty"`
	Aliases       []string `json:"aliases,omitempty" doc:"Other names the runtime takes for the same model (a full id beside an alias)."`
	Efforts       []string `json:"efforts" doc:"The reasoning-effort levels the model takes, lowest first; empty when it takes none (effort is then refused)."`
	DefaultEffort string   `json:"defaultEffort,omitempty"`
}

// SlashCommand is one of a runtime's slash commands: a prompt "/name args"
// runs it.
type SlashCommand struct {
	Name         string `json:"name" doc:"Without the slash."`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
}

// SessionConfigureParams changes a session's model, effort or permission
// mode; at least one is required.
type SessionConfigureParams struct {
	SessionID      string         `json:"session_id"`
	AgentType      string         `json:"agent_type,omitempty"`
	Model          string         `json:"model,omitempty" doc:"One of the runtime record's models (id or alias)."`
	Effort         string         `json:"effort,omitempty" doc:"One of the model's efforts (the model asked for, else the session's, else the runtime's default model)."`
	PermissionMode PermissionMode `json:"permission_mode,omitempty"`
}

// SessionConfigureResult answers session/configure: the session's whole
// configuration from its next turn on.
type SessionConfigureResult struct {
	SessionID      string         `json:"session_id"`
	AgentType      string         `json:"agent_type"`
	Model          string         `json:"model,omitempty" doc:"Absent: the runtime's default."`
	Effort         string         `json:"effort,omitempty" doc:"Absent: the model's default."`
	PermissionMode PermissionMode `json:"permission_mode,omitempty" doc:"Absent: the runtime's default."`
	Applies        string         `json:"applies" enum:"next_turn" doc:"A turn running now keeps what it started with; the change applies from the next turn on, through the runtime's own mechanism."`
	TurnRunning    bool           `json:"turn_running" doc:"A turn was running when the change was made (so it is not affected)."`
}

// UnsupportedModel refuses a model the routed runtime does not offer; the
// data lists those it does.
func UnsupportedModel(model, agentType string, offered []string) *Error {
	e := InvalidParams("model", fmt.Sprintf("%s does not offer %q", agentType, model))
	data := e.Data.(map[string]any)
	data["value"], data["agent_type"] = model, agentType
	data["supported"] = append([]string{}, offered...)
	return e
}

// UnsupportedEffort refuses an effort the model does not take; the data
// lists those it does (none: the model takes no effort setting).
func UnsupportedEffort(effort, model, agentType string, offered []string) *Error {
	reason := fmt.Sprintf("%s model %q does not take effort %q", agentType, model, effort)
	if len(offered) == 0 {
		reason = fmt.Sprintf("%s model %q takes no effort setting", agentType, model)
	}
	e := InvalidParams("effort", reason)
	data := e.Data.(map[string]any)
	data["value"], data["agent_type"], data["model"] = effort, agentType, model
	data["supported"] = append([]string{}, offered...)
	return e
}
