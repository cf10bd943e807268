package server

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/sessions"
)

func (s *Server) sessionMethods() family {
	return family{
		rpc.MethodSessionStart:    act(withClient(s.sessionStart)),
		rpc.MethodSessionSend:     act(withClient(s.sessionSend)),
		rpc.MethodSessionStop:     act(plain(s.sessionStop)),
		rpc.MethodSessionInput:    act(withClient(s.sessionInput)),
		rpc.MethodSessionRespond:  act(withClient(s.sessionRespond)),
		rpc.MethodSessionState:    read(lookup(plain(s.sessionState))),
		rpc.MethodSessionTurns:    read(plain(s.engine.Turns)),
		rpc.MethodSessionTurnDiff: read(plain(s.engine.TurnDiff)),
		rpc.MethodSessionRevert:   act(plain(s.engine.Revert)),
	}
}

var permissionModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionAcceptEdits,
	rpc.PermissionBypass, rpc.PermissionPlan, rpc.PermissionInteractive}

func (s *Server) sessionStart(ctx context.Context, c *client, p rpc.SessionStartParams) (rpc.SessionStartResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.SessionStartResult{}, err
	}
	if err := oneOf("permission_mode", p.PermissionMode, permissionModes...); err != nil {
		return rpc.SessionStartResult{}, err
	}
	if p.SessionID != "" && p.ResumeSessionID != "" && p.SessionID != p.ResumeSessionID {
		return rpc.SessionStartResult{}, rpc.InvalidParams("resume_session_id", "conflicts with session_id")
	}
	if len(p.Attachments) > 0 && p.Prompt == "" {
		return rpc.SessionStartResult{}, rpc.InvalidParams("attachments", "go with a prompt: the first turn's")
	}
	atts, err := s.resolveAttachments(p.Attachments)
	if err != nil {
		return rpc.SessionStartResult{}, err
	}
	o := sessions.StartOptions{WorkspaceID: p.WorkspaceID, Cwd: p.Cwd, AgentType: p.AgentType, SessionID: p.SessionID,
		Model: p.Model, Effort: p.Effort, PermissionMode: p.PermissionMode, Yolo: p.YoloMode}
	for _, a := range atts {
		o.AttachmentKinds = append(o.AttachmentKinds, a.Kind)
	}
	if p.ResumeSessionID != "" {
		o.SessionID, o.Resume = p.ResumeSessionID, true
	}
	res, err := s.engine.Start(ctx, c, o)
	if err != nil || p.Prompt == "" {
		return res, err
	}
	// The first turn. If it cannot be sent the session still exists; the
	// error says why and, in its data, which session it is.
	if _, err := s.engine.Send(ctx, c, sessions.SendOptions{Prompt: p.Prompt, SessionID: res.SessionID,
		AgentType: res.AgentType, Attachments: atts}); err != nil {
		return res, withSessionID(err, res.SessionID)
	}
	return res, nil
}

// withSessionID adds session_id to an error's data.
func withSessionID(err error, id string) error {
	e := *rpc.AsError(err)
	data := map[string]any{"session_id": id}
	if m, ok := e.Data.(map[string]any); ok {
		for k, v := range m {
			data[k] = v
		}
	} else if e.Data != nil {
		data["cause"] = e.Data
	}
	e.Data = data
	return &e
}

func (s *Server) sessionSend(ctx context.Context, c *client, p rpc.SessionSendParams) (rpc.SessionSendResult, error) {
	if err := required("prompt", p.Prompt); err != nil {
		return rpc.SessionSendResult{}, err
	}
	if err := oneOf("mode", p.Mode, rpc.SendNew, rpc.SendContinue); err != nil {
		return rpc.SessionSendResult{}, err
	}
	if err := oneOf("permission_mode", p.PermissionMode, permissionModes...); err != nil {
		return rpc.SessionSendResult{}, err
	}
	atts, err := s.resolveAttachments(p.Attachments)
	if err != nil {
		return rpc.SessionSendResult{}, err
	}
	return s.engine.Send(ctx, c, sessions.SendOptions{Prompt: p.Prompt, SessionID: p.SessionID,
		WorkspaceID: p.WorkspaceID, Mode: p.Mode, AgentType: p.AgentType,
		Options:       sessions.StartOptions{Model: p.Model, Effort: p.Effort, PermissionMode: p.PermissionMode, Yolo: p.YoloMode},
		Configuration: sessions.Configuration{Model: p.Model, Effort: p.Effort},
		NoQueue:       p.Queue != nil && !*p.Queue,
		Attachments:   atts})
}

// resolveAttachments checks a turn's attachments and stores the inline
// ones (attachments.Store.Resolve); the engine then checks that the
// runtime takes their kinds.
func (s *Server) resolveAttachments(list []rpc.Attachment) ([]runtimes.Attachment, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if s.cfg.Attachments == nil {
		return nil, rpc.InvalidParams("attachments", "this cdevd keeps no attachments")
	}
	return s.cfg.Attachments.Resolve(list)
}

func (s *Server) sessionStop(ctx context.Context, p rpc.SessionStopParams) (rpc.SessionStopResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.SessionStopResult{}, err
	}
	return s.engine.Stop(ctx, p.SessionID, p.AgentType)
}

func (s *Server) sessionInput(ctx context.Context, c *client, p rpc.SessionInputParams) (rpc.StatusResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.StatusResult{}, err
	}
	in := p.Key
	if in == "" {
		in = p.Input
	}
	if err := required("input", in); err != nil {
		return rpc.StatusResult{}, err
	}
	if err := s.engine.Input(ctx, c, p.SessionID, p.AgentType, in); err != nil {
		return rpc.StatusResult{}, err
	}
	return rpc.StatusResult{Status: "sent"}, nil
}

func (s *Server) sessionRespond(ctx context.Context, c *client, p rpc.SessionRespondParams) (rpc.StatusResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.StatusResult{}, err
	}
	if err := required("type", string(p.Type)); err != nil {
		return rpc.StatusResult{}, err
	}
	if err := oneOf("type", p.Type, rpc.RespondPermission, rpc.RespondQuestion); err != nil {
		return rpc.StatusResult{}, err
	}
	if err := required("response", p.Response); err != nil {
		return rpc.StatusResult{}, err
	}
	if err := s.engine.Respond(ctx, c, p.SessionID, p.AgentType, p.Type, p.RequestID, p.Response); err != nil {
		return rpc.StatusResult{}, err
	}
	return rpc.StatusResult{Status: "responded"}, nil
}

func (s *Server) sessionState(_ context.Context, p rpc.SessionStateParams) (rpc.SessionStateResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.SessionStateResult{}, err
	}
	return s.engine.State(p.SessionID)
}
