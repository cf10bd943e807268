package contracttests

// The scenarios on what is stored and advertised: read your writes, a
// session run outside cdevd, client-chosen ids, and the registry record.

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
)

// 7. Right after turn_completed, messages and history hold the turn, each
// message once, in the order streamed (consistency_test.go's checkStored).
func scenarioReadYourWrites(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id, seen := newTurn(t, ctx, c, w, r.rt.id, "first question")
	r.checkStored(t, ctx, c, w, id, "first question", seen)
	seen = append(seen, nextTurn(t, ctx, c, id, r.rt.id, "and a second one")...)
	r.checkStored(t, ctx, c, w, id, "first question", seen)
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}

// checkStored is checkStored for this runtime: every message received live
// is stored under the same id. Every runtime under the suite echoes its
// prompts with their stored ids (Info().EchoesPrompts); one that did not
// would fail here, as its prompts would be listed twice.
func (r *scenarioRig) checkStored(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id, summary string, seen []rpc.MessageEvent) {
	t.Helper()
	if !r.adapter.Info().EchoesPrompts {
		t.Errorf("%s does not echo its prompts with the ids its transcript keeps", r.rt.id)
	}
	checkStored(t, ctx, c, w, id, r.rt.id, summary, seen)
}

// 8. A session run in a terminal in the workspace is in its history, and
// watching it streams what a later run in the terminal adds.
func scenarioOutside(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.outside(t, ctx, w.Path, "outside one", "")
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].MessageCount != 2 {
		t.Errorf("history %+v, want the outside session with its 2 messages", h.Sessions)
	}
	res := r.watch(t, ctx, c, w, id)
	if res.LastSeq != 0 {
		t.Errorf("watch of the outside session = %+v", res)
	}
	r.outside(t, ctx, w.Path, "outside two", id)
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.Contains(saidLive(messageEvents(t, ns)), "assistant: echo: outside two")
	}); err != nil {
		t.Fatalf("the watcher never got the second answer: %v", err)
	}
	evs := c.SessionEvents(id)
	checkSeqs(t, evs, 1, res.Epoch)
	if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: outside two", "assistant: echo: outside two"}) {
		t.Errorf("the watcher got %q, want the second run's messages only", got)
	}
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].MessageCount != 4 {
		t.Errorf("history %+v, want the outside session with its 4 messages", h.Sessions)
	}
	want := []string{"user: outside one", "assistant: echo: outside one", "user: outside two", "assistant: echo: outside two"}
	if got := saidPaged(r.messages(t, ctx, c, w, id).Messages); !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}

// 9. A new session under an id the client chose: used as is where the
// runtime lets clients choose, else refused with -32602 and data saying
// why, before any process starts.
func scenarioIDs(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	chosen := uuid.NewString()
	raw, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, SessionID: chosen, AgentType: r.rt.id})
	if r.adapter.Info().ClientIDs {
		if rerr != nil {
			t.Fatalf("session/start with a chosen id: %v", rerr)
		}
		if !strings.Contains(string(raw), `"session_id":"`+chosen+`"`) {
			t.Errorf("session/start with a chosen id = %s", raw)
		}
		c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: chosen, AgentType: r.rt.id}, nil)
		return
	}
	wantError(t, "session/start with a client-chosen id", rerr, rpc.CodeInvalidParams)
	if d := errData(t, rerr); d["field"] != "session_id" || d["value"] != chosen || d["agent_type"] != r.rt.id || d["reason"] == "" {
		t.Errorf("error data %v, want field session_id, the value, agent_type %s and a reason", d, r.rt.id)
	}
	if left := r.procs(w.Path); len(left) != 0 {
		t.Errorf("the refused start left processes %v", left)
	}
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 0 {
		t.Errorf("the refused start left sessions %+v", h.Sessions)
	}
}

// 10. The record initialize gave advertises nothing the scenarios did not
// prove, and its plain facts hold.
func scenarioRegistry(t *testing.T, r *scenarioRig) {
	rec := r.record
	if rec.Status != rpc.RuntimeActive || !rec.Availability.Installed || rec.Availability.Version == "" || rec.Availability.Reason != "" {
		t.Errorf("%s is not available: %+v", rec.ID, rec)
	}
	want := rpc.RuntimeMethods{History: rpc.MethodHistory, Messages: rpc.MethodMessages, Watch: rpc.MethodWatch,
		Unwatch: rpc.MethodUnwatch, Start: rpc.MethodSessionStart, Send: rpc.MethodSessionSend, Stop: rpc.MethodSessionStop,
		Input: rpc.MethodSessionInput, Respond: rpc.MethodSessionRespond, State: rpc.MethodSessionState}
	if rec.SupportsConfigure {
		want.Configure = rpc.MethodSessionConfigure
	}
	if rec.Methods != want {
		t.Errorf("methods %+v, want %+v", rec.Methods, want)
	}
	if !slices.Contains(rec.PermissionModes, rpc.PermissionDefault) {
		t.Errorf("permissionModes %v lack default, which the scenarios use", rec.PermissionModes)
	}
	// Each advertised feature and the scenarios that prove it.
	claims := []struct {
		flag   string
		on     bool
		proofs []string
	}{
		{"supportsResume", rec.SupportsResume, []string{scResume, scOutside}},
		{"supportsPermissions", rec.SupportsPermissions, []string{scPermissions}},
		{"supportsInteractiveQuestions", rec.SupportsInteractiveQuestions, []string{scQuestion}},
		{"supportsHistory", rec.SupportsHistory, []string{scReadWrites, scOutside}},
		{"supportsSteering", rec.SupportsSteering, []string{scSteer}},
		{"supportsConfigure", rec.SupportsConfigure, []string{scConfigure}},
		// The suite knows no other way: the id session/start returns is final.
		{"!requiresSessionResolutionOnNewSession", !rec.RequiresSessionResolutionOnNewSession, []string{scTextTurn, scIDs}},
		{"attachments: image", slices.Contains(rec.Attachments, rpc.AttachImage), []string{scAttachments}},
		{"attachments: file", slices.Contains(rec.Attachments, rpc.AttachFile), []string{scAttachments}},
	}
	for _, cl := range claims {
		if !cl.on {
			continue
		}
		for _, p := range cl.proofs {
			if !r.proved[p] {
				t.Errorf("%s says %s, but %q did not pass", rec.ID, cl.flag, p)
			}
		}
	}
	if rec.RequiresSessionResolutionOnNewSession {
		t.Errorf("%s requires session resolution on new sessions: the suite proves ids final at start", rec.ID)
	}
	if !rec.SupportsPermissions && r.proved[scPermissions] {
		t.Errorf("%s passed %q but does not advertise supportsPermissions", rec.ID, scPermissions)
	}
	if !rec.SupportsResume && r.proved[scResume] {
		t.Errorf("%s passed %q but does not advertise supportsResume", rec.ID, scResume)
	}
}
