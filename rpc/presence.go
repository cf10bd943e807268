package rpc

// FocusParams says which session this connection shows now.
type FocusParams struct {
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
	Active      *bool  `json:"active,omitempty" doc:"false: this client's page is hidden (the console sends document.visibilityState), so it views nothing until it focuses again. Omitted: true."`
}

// FocusResult tells a client who else views the session.
type FocusResult struct {
	Success      bool     `json:"success"`
	WorkspaceID  string   `json:"workspace_id"`
	SessionID    string   `json:"session_id"`
	ViewerCount  int      `json:"viewer_count" doc:"Viewers of the session, this client included (0 after active:false)."`
	OtherViewers []string `json:"other_viewers" doc:"The other viewers' client ids (initialize's clientId)."`
}

// SessionJoinedEvent tells a session's viewers that another client started
// viewing it. It carries no session_id (the iOS app would take it for a
// session's info): it is about the session the recipient focused.
type SessionJoinedEvent struct {
	WorkspaceID     string   `json:"workspace_id"`
	AgentType       string   `json:"agent_type"`
	Timestamp       string   `json:"timestamp" format:"date-time"`
	JoiningClientID string   `json:"joining_client_id"`
	OtherViewers    []string `json:"other_viewers" doc:"The viewers but the recipient."`
	ViewerCount     int      `json:"viewer_count"`
}

// SessionLeftEvent tells a session's viewers that a client stopped viewing
// it (it focused another, hid its page or disconnected).
type SessionLeftEvent struct {
	WorkspaceID      string   `json:"workspace_id"`
	AgentType        string   `json:"agent_type"`
	Timestamp        string   `json:"timestamp" format:"date-time"`
	LeavingClientID  string   `json:"leaving_client_id"`
	RemainingViewers []string `json:"remaining_viewers" doc:"The viewers left but the recipient."`
	ViewerCount      int      `json:"viewer_count"`
}
