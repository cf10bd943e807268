package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// A prompt queued with attachments runs with them, also after its queue
// went through the file a restart reloads; an image gone meanwhile fails
// the turn by name instead of running the prompt without it.
func TestQueuedPromptKeepsItsAttachments(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "att_1.png")
	png := []byte("\x89PNG\r\n\x1a\nnot really, but bytes")
	if err := os.WriteFile(img, png, 0o600); err != nil {
		t.Fatal(err)
	}
	sent := runtimes.Turn{Prompt: "look at this", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachImage, MIMEType: "image/png", Name: "screen.png", Path: img, Data: png},
		{Kind: rpc.AttachFile, MIMEType: "text/plain", Name: "notes.txt", Path: filepath.Join(dir, "att_2.txt")},
	}}
	it := rpc.QueueItem{QueueID: "q1", Prompt: sent.Prompt, Attachments: queuedAttachments(sent.Attachments)}

	// As the queue's file keeps it across a restart.
	raw, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, png) {
		t.Fatalf("the queue's file holds the image's bytes: %s", raw)
	}
	var back rpc.QueueItem
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}

	got, err := queuedTurn(back)
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompt != sent.Prompt || len(got.Attachments) != 2 {
		t.Fatalf("turn = %+v", got)
	}
	if im := got.Images(); len(im) != 1 || !bytes.Equal(im[0].Data, png) || im[0].MIMEType != "image/png" {
		t.Fatalf("images = %+v", im)
	}
	if f := got.Attachments[1]; f.Kind != rpc.AttachFile || f.Path != sent.Attachments[1].Path || f.Data != nil {
		t.Fatalf("file = %+v", f)
	}

	if err := os.Remove(img); err != nil {
		t.Fatal(err)
	}
	if _, err := queuedTurn(back); err == nil || !strings.Contains(err.Error(), "screen.png") {
		t.Fatalf("an expired image: err = %v, want one naming screen.png", err)
	}
}
