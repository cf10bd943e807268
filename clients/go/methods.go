package client

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
)

// Typed calls for the methods clients use most; Call reaches every other
// method (rpc.Methods lists them).

// WorkspaceList lists the workspaces.
func (c *Client) WorkspaceList(ctx context.Context) ([]rpc.Workspace, error) {
	var res rpc.WorkspaceListResult
	err := c.Call(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &res)
	return res.Workspaces, err
}

// WorkspaceAdd adds a directory as a workspace.
func (c *Client) WorkspaceAdd(ctx context.Context, p rpc.WorkspaceAddParams) (rpc.Workspace, error) {
	var res rpc.Workspace
	err := c.Call(ctx, rpc.MethodWorkspaceAdd, p, &res)
	return res, err
}

// SessionStart starts, resumes or attaches to a session. The caller is
// not watching it until it calls Watch (session/start attaches this
// connection, but only Watch survives a reconnect).
func (c *Client) SessionStart(ctx context.Context, p rpc.SessionStartParams) (rpc.SessionStartResult, error) {
	var res rpc.SessionStartResult
	err := c.Call(ctx, rpc.MethodSessionStart, p, &res)
	return res, err
}

// SessionSend sends the next user turn.
func (c *Client) SessionSend(ctx context.Context, p rpc.SessionSendParams) (rpc.SessionSendResult, error) {
	var res rpc.SessionSendResult
	err := c.Call(ctx, rpc.MethodSessionSend, p, &res)
	return res, err
}

// SessionRespond answers a permission request or a question.
func (c *Client) SessionRespond(ctx context.Context, p rpc.SessionRespondParams) error {
	return c.Call(ctx, rpc.MethodSessionRespond, p, nil)
}

// SessionStop interrupts the running turn and ends the session's process.
func (c *Client) SessionStop(ctx context.Context, p rpc.SessionStopParams) (rpc.SessionStopResult, error) {
	var res rpc.SessionStopResult
	err := c.Call(ctx, rpc.MethodSessionStop, p, &res)
	return res, err
}

// History lists a workspace's sessions, newest first.
func (c *Client) History(ctx context.Context, p rpc.HistoryParams) (rpc.HistoryResult, error) {
	var res rpc.HistoryResult
	err := c.Call(ctx, rpc.MethodHistory, p, &res)
	return res, err
}

// Messages reads a page of a session's transcript. A message's ID there is
// its position in the transcript; key messages on UUID, which the same
// message's live event carries too.
func (c *Client) Messages(ctx context.Context, p rpc.MessagesParams) (rpc.MessagesResult, error) {
	var res rpc.MessagesResult
	err := c.Call(ctx, rpc.MethodMessages, p, &res)
	return res, err
}
