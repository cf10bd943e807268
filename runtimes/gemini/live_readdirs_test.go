package gemini

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// readReply has the model read the file a prompt "READ <path>" names with
// Gemini's read_file tool, then say "read" once the tool's result is back.
func readReply(r fakegemini.Request) fakegemini.Reply {
	if _, ok := r.FunctionResponse(); ok {
		return fakegemini.Text("read")
	}
	if path, ok := strings.CutPrefix(r.LastUserText(), "READ "); ok && r.HasTool("read_file") {
		return fakegemini.Call("read_file", map[string]string{"file_path": path})
	}
	return fakegemini.Echo(r)
}

// readResult sends "READ <path>" and returns the requests that carried the
// read_file tool's result back to the model, which the turn must reach.
func readResult(t *testing.T, e *env, s runtimes.Session, rec *recorder, path string) []fakegemini.Request {
	t.Helper()
	before := len(e.api.GenerateRequests())
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "READ " + path}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Fatalf("the turn ended %#v", evs[len(evs)-1])
	}
	var out []fakegemini.Request
	for _, r := range e.api.GenerateRequests()[before:] {
		if resp, ok := r.FunctionResponse(); ok && resp.Name == "read_file" {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatalf("the model never received read_file's result for %s", path)
	}
	return out
}

// Gemini's tools read only inside their workspace. A folder of
// StartRequest.ReadDirs (cdevd's attachments, outside every workspace) is
// given with --include-directories, which gemini --acp honours: read_file
// returns a text file's content and an image's bytes, as the iOS app's
// "[Attached images: <path>]" needs. Without it the read is refused, which
// shows that the flag is what grants it.
func TestReadDirs(t *testing.T) {
	attachments, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(attachments, "notes.txt")
	const content = "the secret word is periwinkle"
	if err := os.WriteFile(notes, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	img := testimage.PNG(9, 40, 30)
	photo := filepath.Join(attachments, "IMG_0001.png")
	if err := os.WriteFile(photo, img, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("granted", func(t *testing.T) {
		e := newEnv(t)
		e.api.Respond(readReply)
		s, rec := e.start(t, runtimes.StartRequest{ReadDirs: []string{attachments}})

		reqs := readResult(t, e, s, rec, notes)
		resp, _ := reqs[0].FunctionResponse()
		if !strings.Contains(string(resp.Response), content) {
			t.Fatalf("read_file's result %s lacks the file's text %q", resp.Response, content)
		}

		reqs = readResult(t, e, s, rec, photo)
		var got [][]byte
		for _, im := range reqs[0].Images() {
			got = append(got, im.Data)
			if bytes.Equal(im.Data, img) && im.MediaType != "image/png" {
				t.Errorf("the image reached the model as %q, want image/png", im.MediaType)
			}
		}
		if !containsBytes(got, img) {
			resp, _ := reqs[0].FunctionResponse()
			t.Fatalf("the model received images %d, none the %d bytes read (result %s)", len(got), len(img), resp.Response)
		}
	})

	t.Run("not granted", func(t *testing.T) {
		e := newEnv(t)
		e.api.Respond(readReply)
		s, rec := e.start(t, runtimes.StartRequest{})
		reqs := readResult(t, e, s, rec, notes)
		resp, _ := reqs[0].FunctionResponse()
		if strings.Contains(string(resp.Response), content) || !strings.Contains(string(resp.Response), "error") {
			t.Fatalf("read_file outside the workspace gave %s; want a refusal", resp.Response)
		}
	})
}

func containsBytes(all [][]byte, b []byte) bool {
	for _, x := range all {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}
