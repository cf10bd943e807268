package contracttests

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// attachedImages is the app's note of its uploads in a prompt.
var attachedImages = regexp.MustCompile(`\[Attached images: ([^\],]+)\]`)

// With the real Claude CLI: the iOS app's flow (an upload, then a prompt
// naming its local_path, which the agent reads) and attachments on
// session/send (an upload's id and inline data), each image reaching the
// fake Anthropic API with the bytes the client sent.
func TestAttachmentsWithClaude(t *testing.T) {
	r := newClaudeRig(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, r.url, r.token)
	if got := init.Capabilities.RuntimeRegistry.Runtimes[0].Attachments; len(got) != 2 ||
		got[0] != rpc.AttachImage || got[1] != rpc.AttachFile {
		t.Fatalf("claude's record accepts %v; the subtests prove image and file", got)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	base := "http://" + r.addr
	home := r.home

	t.Run("the app: upload, then [Attached images: path]", func(t *testing.T) {
		ctx := testCtx(t)
		img := testimage.PNG(5, 120, 80)
		st, out := upload(t, ctx, base, w.ID, r.token, "IMG_0001.png", img)
		_, path := uploaded(t, home, img, st, out)
		// The model reads the file the prompt names, as Claude does with
		// the app's note; the Read tool gives it the image.
		r.respond(t, func(req fakeanthropic.Request) fakeanthropic.Reply {
			if res, ok := req.ToolResult(); ok {
				return fakeanthropic.Text("I see it: " + res.Type)
			}
			if m := attachedImages.FindStringSubmatch(req.LastUserText()); m != nil && req.HasTool("Read") {
				return fakeanthropic.UseTool("Read", map[string]string{"file_path": m[1]})
			}
			return fakeanthropic.Echo(req)
		})
		var res rpc.SessionStartResult
		c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID,
			Prompt: "What does this show?\n\n[Attached images: " + path + "]"}, &res)
		awaitTurnCompleted(t, ctx, c, res.SessionID)
		if !sawImage(r.fake.MessageRequests(), img, true) {
			t.Fatalf("the model never received the uploaded image from the Read tool")
		}
	})

	t.Run("session/send with an upload's id and inline data", func(t *testing.T) {
		ctx := testCtx(t)
		r.respond(t, fakeanthropic.Echo)
		up := testimage.PNG(6, 50, 50)
		st, out := upload(t, ctx, base, w.ID, r.token, "shot.png", up)
		id, _ := uploaded(t, home, up, st, out)
		inline := testimage.PNG(7, 30, 20)
		var res rpc.SessionSendResult
		c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew,
			AgentType: claude.ID, Prompt: "compare these", Attachments: []rpc.Attachment{
				{Kind: rpc.AttachImage, ID: id},
				{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString(inline), MIMEType: "image/png"},
			}}, &res)
		awaitTurnCompleted(t, ctx, c, res.SessionID)
		reqs := r.fake.MessageRequests()
		if !sawImage(reqs, up, false) || !sawImage(reqs, inline, false) {
			t.Fatalf("the model did not receive both images as image blocks of the prompt")
		}
	})
}

// sawImage reports whether a request carried img, from a tool's result
// (fromTool) or in the user's message.
func sawImage(reqs []fakeanthropic.Request, img []byte, fromTool bool) bool {
	for _, q := range reqs {
		for _, im := range q.Images() {
			if im.InToolResult == fromTool && im.MediaType == "image/png" && bytes.Equal(im.Data, img) {
				return true
			}
		}
	}
	return false
}

// awaitTurnCompleted waits for the session's turn to complete (a failed turn
// fails the test).
func awaitTurnCompleted(t *testing.T, ctx context.Context, c *Client, id string) {
	t.Helper()
	n, err := c.Await(ctx, func(n Notification) bool { return isTerminal(n) && n.Header().SessionID == id })
	if err != nil {
		t.Fatalf("the turn did not end: %v", err)
	}
	if n.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the turn ended with %s", n)
	}
}
