package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// An image attached to a turn reaches the Responses API as an input_image,
// the same bytes (Codex reads the file cdevd keeps); a file is named, with
// its path, in the prompt's text. This proves Info().Attachments.
func TestLiveAttachments(t *testing.T) {
	l := newLive(t, fakeopenai.Echo)
	s, evs := l.start(t, runtimes.StartRequest{})
	img := testimage.PNG(2, 64, 48)
	dir := t.TempDir()
	imgPath := filepath.Join(dir, "att_image.png")
	if err := os.WriteFile(imgPath, img, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "att_notes.txt")
	turn := runtimes.Turn{Prompt: "what is in the picture?", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachImage, MIMEType: "image/png", Path: imgPath, Data: img},
		{Kind: rpc.AttachFile, MIMEType: "text/plain", Name: "notes.txt", Path: file},
	}}
	if err := s.Send(t.Context(), turn); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("the turn did not complete: %s", describe(evs.all()))
	}
	var got []byte
	var text string
	for _, r := range l.api.Requests() {
		for _, im := range r.Images() {
			got, text = im.Data, r.LastUserText()
			if im.MediaType != "image/png" {
				t.Errorf("media type %q, want image/png", im.MediaType)
			}
		}
	}
	if !bytes.Equal(got, img) {
		t.Fatalf("the model received %d image bytes, want the %d sent", len(got), len(img))
	}
	if want := `[Attached files: "notes.txt" at ` + file + `]`; !strings.HasPrefix(text, "what is in the picture?") ||
		!strings.Contains(text, want) {
		t.Fatalf("the model's prompt %q does not carry %q", text, want)
	}
	if !l.a.Info().AcceptsAttachment(rpc.AttachImage) || !l.a.Info().AcceptsAttachment(rpc.AttachFile) {
		t.Fatal("Info does not declare what this test proves")
	}
}
