package contracttests

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// The iOS app's flow with the real Gemini CLI: an upload, then a prompt
// naming its local_path. The file is outside the workspace, where
// Gemini's tools do not read unless cdevd grants its folder; read_file
// gives the model the image the client sent.
func TestAttachmentsWithGemini(t *testing.T) {
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with a fake model API; %s targets an external server", envURL)
	}
	// The fake goes first so that it closes last, after cdevd has ended the CLI.
	api := fakegemini.New(t)
	api.Respond(func(req fakegemini.Request) fakegemini.Reply {
		if _, ok := req.FunctionResponse(); ok {
			return fakegemini.Text("I see it")
		}
		if m := attachedImages.FindStringSubmatch(req.LastUserText()); m != nil && req.HasTool("read_file") {
			return fakegemini.Call("read_file", map[string]string{"file_path": m[1]})
		}
		return fakegemini.Echo(req)
	})
	home := t.TempDir()
	d := StartDaemon(t, daemon.Config{Home: home, Adapters: []runtimes.Adapter{
		gemini.New(gemini.Config{Bin: geminitest.Bin(t), Env: geminitest.Env(t, api.URL()), KillGrace: 5 * time.Second}),
	}})
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, d.URL(), d.Token())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)

	img := testimage.PNG(11, 120, 80)
	st, out := upload(t, ctx, "http://"+d.Addr(), w.ID, d.Token(), "IMG_0002.png", img)
	_, path := uploaded(t, home, img, st, out)
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: gemini.ID,
		Prompt: "What does this show?\n\n[Attached images: " + path + "]"}, &res)
	awaitTurnCompleted(t, ctx, c, res.SessionID)
	for _, r := range api.GenerateRequests() {
		if _, ok := r.FunctionResponse(); !ok {
			continue
		}
		for _, im := range r.Images() {
			if im.MediaType == "image/png" && bytes.Equal(im.Data, img) {
				return
			}
		}
	}
	t.Fatalf("the model never received the uploaded image from read_file")
}
