package gemini

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// An image attached to a turn reaches the Gemini API as an inlineData
// part, the same bytes (gemini --acp says promptCapabilities.image, and
// takes ACP image blocks); a file is named, with its path, in the prompt's
// text. This proves Info().Attachments.
func TestAttachments(t *testing.T) {
	e := newEnv(t)
	s, rec := e.start(t, runtimes.StartRequest{})
	img := testimage.PNG(3, 64, 48)
	file := filepath.Join(t.TempDir(), "att_notes.txt")
	turn := runtimes.Turn{Prompt: "what is in the picture?", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachImage, MIMEType: "image/png", Path: "/unused.png", Data: img},
		{Kind: rpc.AttachFile, MIMEType: "text/plain", Name: "notes.txt", Path: file},
	}}
	if err := s.Send(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Fatalf("the turn ended %#v", evs[len(evs)-1])
	}
	var got []byte
	var texts []string
	for _, r := range e.api.GenerateRequests() {
		for _, im := range r.Images() {
			got = im.Data
			if im.MediaType != "image/png" {
				t.Errorf("media type %q, want image/png", im.MediaType)
			}
			for _, c := range r.Contents {
				for _, p := range c.Parts {
					texts = append(texts, p.Text)
				}
			}
		}
	}
	if !bytes.Equal(got, img) {
		t.Fatalf("the model received %d image bytes, want the %d sent", len(got), len(img))
	}
	if want := `[Attached files: "notes.txt" at ` + file + `]`; !strings.Contains(strings.Join(texts, "\n"), want) {
		t.Fatalf("the model's prompt %q does not carry %q", texts, want)
	}
	if !e.a.Info().AcceptsAttachment(rpc.AttachImage) || !e.a.Info().AcceptsAttachment(rpc.AttachFile) {
		t.Fatal("Info does not declare what this test proves")
	}
}
