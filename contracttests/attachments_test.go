package contracttests

// Attachments over the wire: the iOS app's upload (POST /api/images) and
// its refusals, and the attachments of session/send and session/start
// refused before anything starts. With the real Claude CLI:
// attachments_claude_test.go.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// upload posts data as the iOS app does: multipart, part "file", with the
// file name and type the app chose, and the bearer token.
func upload(t *testing.T, ctx context.Context, base, workspaceID, token, filename string, data []byte) (int, map[string]any) {
	t.Helper()
	return uploadBody(t, ctx, base, workspaceID, token, filename, data, false)
}

// uploadBody uploads as upload does; streamed sends the body without a
// Content-Length, as a client streaming from a file may.
func uploadBody(t *testing.T, ctx context.Context, base, workspaceID, token, filename string, data []byte, streamed bool) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+filename+`"`)
	h.Set("Content-Type", "image/jpeg")
	w, _ := mw.CreatePart(h)
	w.Write(data)
	mw.Close()
	var r io.Reader = &body
	if streamed {
		r = struct{ io.Reader }{&body} // hides the length from net/http
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/images?workspace_id="+workspaceID, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("status %d, body %q is not JSON", resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// uploaded checks an upload's answer field by field, as the app's decoder
// requires them, and returns its id and local_path.
func uploaded(t *testing.T, home string, data []byte, status int, out map[string]any) (string, string) {
	t.Helper()
	id, _ := out["id"].(string)
	path, _ := out["local_path"].(string)
	_, isNum := out["expires_at"].(float64)
	if status != 200 || out["success"] != true || id == "" || out["mime_type"] != "image/png" ||
		out["size"] != float64(len(data)) || !isNum {
		t.Fatalf("upload: %d %v", status, out)
	}
	dir := filepath.Join(home, "attachments")
	if filepath.Dir(path) != dir {
		t.Fatalf("local_path %s is not in %s", path, dir)
	}
	fi, err := os.Stat(path)
	di, _ := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("the upload is not private: %v, file %v, folder %v", err, fi.Mode(), di.Mode())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Fatal("the stored file differs from the upload")
	}
	return id, path
}

func TestUploadImage(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := t.TempDir()
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	base := "http://" + e.d.Addr()
	img := testimage.PNG(9, 40, 30)

	st, out := upload(t, ctx, base, w.ID, e.token, "../../../"+filepath.Base(dir)+"/escaped.png", img)
	uploaded(t, e.home, img, st, out)
	if _, err := os.Stat(filepath.Join(dir, "escaped.png")); err == nil {
		t.Fatal("the client's file name reached a path")
	}
	// A paired device that may act uploads too.
	st, out = upload(t, ctx, base, w.ID, pairDevice(t, ctx, base, e.token, "phone", "control"), "a.png", img)
	uploaded(t, e.home, img, st, out)

	watch := pairDevice(t, ctx, base, e.token, "wall screen", "watch")
	for _, c := range []struct {
		name, workspace, token string
		data                   []byte
		status                 int
		says                   string
		streamed               bool
	}{
		{"no token", w.ID, "", img, 401, "Bearer", false},
		{"an invalid token", w.ID, "cdev_s_not-a-token", img, 401, "Bearer", false},
		{"a watch device", w.ID, watch, img, 403, "scope watch", false},
		{"an unknown workspace", "nope", e.token, img, 404, "nope", false},
		{"bytes that are not an image", w.ID, e.token, []byte("%PDF-1.4 pretending to be a JPEG"), 415, "PNG, JPEG, GIF or WebP", false},
		{"50 MB", w.ID, e.token, append(testimage.PNG(1, 8, 8), make([]byte, 50<<20)...), 413, "at most 20 MiB", false},
		{"50 MB without a length", w.ID, e.token, append(testimage.PNG(1, 8, 8), make([]byte, 50<<20)...), 413, "at most 20 MiB", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := uploadBody(t, ctx, base, c.workspace, c.token, "a.png", c.data, c.streamed)
			msg, _ := out["error"].(string)
			if st != c.status || out["success"] != false || !strings.Contains(msg, c.says) {
				t.Fatalf("%d %v, want %d saying %q", st, out, c.status, c.says)
			}
		})
	}
	// The server is intact after every refusal.
	st, out = upload(t, ctx, base, w.ID, e.token, "b.png", img)
	uploaded(t, e.home, img, st, out)
	entries, _ := os.ReadDir(filepath.Join(e.home, "attachments"))
	if len(entries) != 3 {
		t.Fatalf("the folder holds %d files, want the 3 accepted uploads (nothing of the refusals)", len(entries))
	}
}

// Bad attachments on session/send and session/start are -32602 naming the
// field, before anything starts; the scripted runtime takes no kind, so a
// good image is refused naming the kinds it takes (none).
func TestAttachmentRefusals(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := t.TempDir()
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	img := testimage.PNG(4, 16, 16)
	st, out := upload(t, ctx, "http://"+e.d.Addr(), w.ID, e.token, "a.png", img)
	id, _ := uploaded(t, e.home, img, st, out)
	inline := base64.StdEncoding.EncodeToString(img)
	hundred := make([]rpc.Attachment, 100)
	for i := range hundred {
		hundred[i] = rpc.Attachment{Kind: rpc.AttachImage, ID: id}
	}
	for _, c2 := range []struct {
		name  string
		atts  []rpc.Attachment
		field string
	}{
		{"100 attachments", hundred, "attachments"},
		{"an unknown upload", []rpc.Attachment{{Kind: rpc.AttachImage, ID: "att_" + strings.Repeat("0", 32)}}, "attachments[0].id"},
		{"an id with ../", []rpc.Attachment{{Kind: rpc.AttachImage, ID: "../" + id}}, "attachments[0].id"},
		{"bytes that are not an image", []rpc.Attachment{{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString([]byte("hello"))}}, "attachments[0].data"},
		{"an unknown kind", []rpc.Attachment{{Kind: "audio", Data: inline}}, "attachments[0].kind"},
		{"a kind the runtime does not take", []rpc.Attachment{{Kind: rpc.AttachImage, ID: id, Name: "../../etc/passwd"}}, "attachments[0].kind"},
	} {
		t.Run(c2.name, func(t *testing.T) {
			for _, call := range []struct {
				method string
				params any
			}{
				{rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew, Prompt: "look", Attachments: c2.atts}},
				{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, Prompt: "look", Attachments: c2.atts}},
			} {
				_, rerr := c.Call(ctx, call.method, call.params)
				if rerr == nil || rerr.Code != rpc.CodeInvalidParams {
					t.Fatalf("%s: %v, want -32602", call.method, rerr)
				}
				data, _ := rerr.Data.(map[string]any)
				if data["field"] != c2.field {
					t.Fatalf("%s: data %v, want field %s", call.method, data, c2.field)
				}
				if c2.field == "attachments[0].kind" && c2.atts[0].Kind == rpc.AttachImage {
					if data["agent_type"] != scripted.ID || data["supported"] == nil {
						t.Fatalf("%s: data %v, want the runtime and the kinds it takes", call.method, data)
					}
				}
			}
		})
	}
	// Nothing started: no session in the workspace, no process.
	var hist rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID}, &hist)
	if len(hist.Sessions) != 0 {
		t.Fatalf("sessions after refusals: %+v", hist.Sessions)
	}
	if kids := children(t, dir); len(kids) != 0 {
		t.Fatalf("processes started: %v", kids)
	}
	// And the server is intact: a plain turn runs.
	startSession(t, ctx, c, w)
}
