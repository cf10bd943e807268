package claude

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// An image attached to a turn reaches the model API as an image block, the
// same bytes; a file is named, with its path, in the prompt's text. This
// proves Info().Attachments.
func TestLiveAttachments(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	img := testimage.PNG(1, 64, 48)
	file := filepath.Join(t.TempDir(), "att_notes.txt")
	turn := runtimes.Turn{Prompt: "what is in the picture?", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachImage, MIMEType: "image/png", Path: "/unused.png", Data: img},
		{Kind: rpc.AttachFile, MIMEType: "text/plain", Name: "notes.txt", Path: file},
	}}
	if err := s.Send(t.Context(), turn); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("the turn did not complete: %s", describe(evs.all()))
	}
	reqs := l.fake.MessageRequests()
	var got []byte
	var text string
	for _, r := range reqs {
		for _, im := range r.Images() {
			if im.MediaType == "image/png" && !im.InToolResult {
				got, text = im.Data, r.LastUserText()
			}
		}
	}
	if !bytes.Equal(got, img) {
		t.Fatalf("the model received %d image bytes, want the %d sent", len(got), len(img))
	}
	if want := `[Attached files: "notes.txt" at ` + file + `]`; !strings.HasPrefix(text, "what is in the picture?") ||
		!strings.HasSuffix(text, want) {
		t.Fatalf("the model's prompt %q does not end with %q", text, want)
	}
	if !l.adapter.Info().AcceptsAttachment(rpc.AttachImage) || !l.adapter.Info().AcceptsAttachment(rpc.AttachFile) {
		t.Fatal("Info does not declare what this test proves")
	}
}
