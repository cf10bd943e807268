package contracttests

import (
	"bytes"
	"encoding/base64"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// An image and a file attached to session/send, inline: the model API
// receives the image itself (the bytes the client sent) and the file's
// path in the prompt's text; the file is one the agent can read. A
// runtime whose record accepts neither kind is refused with -32602
// instead, starting nothing.
func scenarioAttachments(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	img := testimage.PNG(byte(len(r.rt.id)), 48, 32)
	const notes = "line one\nline two\n"
	params := rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew, AgentType: r.rt.id, Prompt: "describe it",
		Attachments: []rpc.Attachment{
			{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString(img), MIMEType: "image/png"},
			{Kind: rpc.AttachFile, Data: base64.StdEncoding.EncodeToString([]byte(notes)), Name: "notes.txt"},
		}}
	if !slices.Contains(r.record.Attachments, rpc.AttachImage) || !slices.Contains(r.record.Attachments, rpc.AttachFile) {
		_, rerr := c.Call(ctx, rpc.MethodSessionSend, params)
		wantError(t, "attachments the record does not list", rerr, rpc.CodeInvalidParams)
		if left := r.procs(w.Path); len(left) != 0 {
			t.Errorf("the refused send left processes %v", left)
		}
		t.Skipf("%s's record accepts %v: refused as it says", r.rt.id, r.record.Attachments)
	}
	before := len(r.images())
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, params, &res)
	end, evs := r.end(t, ctx, c, res.SessionID, 0)
	if end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the turn ended with %s; events %v", end, types(evs))
	}
	got := r.images()[before:]
	if !slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, img) }) {
		t.Fatalf("the model received %d new images, none the one sent", len(got))
	}
	history := r.lastHistory(t)
	i := strings.Index(history, `[Attached files: "notes.txt" at `)
	if i < 0 {
		t.Fatalf("the model's prompt does not name the file: %q", history)
	}
	path, _, _ := strings.Cut(history[i+len(`[Attached files: "notes.txt" at `):], "]")
	if b, err := os.ReadFile(path); err != nil || string(b) != notes {
		t.Fatalf("the file the prompt names (%s) holds %q, %v", path, b, err)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: res.SessionID, AgentType: r.rt.id}, nil)
}
