package acp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
)

// A declared agent takes files (named in the text, which every agent
// takes) and declares no images; one whose initialize does not say
// promptCapabilities.image (the fake's) refuses an image with -32602
// before its turn begins, and the session goes on.
func TestAttachmentsFollowPromptCapabilities(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	if got := a.Info().Attachments; !slices.Equal(got, []rpc.AttachmentKind{rpc.AttachFile}) {
		t.Fatalf("a declared agent's attachments: %v, want [file]", got)
	}
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	err := s.Send(context.Background(), runtimes.Turn{Prompt: "look", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachFile, Path: "/tmp/x.txt"},
		{Kind: rpc.AttachImage, MIMEType: "image/png", Data: []byte("\x89PNG")},
	}})
	var e *rpc.Error
	if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams || e.Data.(map[string]any)["field"] != "attachments[1].kind" {
		t.Fatalf("an image to an agent without the capability: %v, want -32602 on attachments[1].kind", err)
	}
	err = s.Send(context.Background(), runtimes.Turn{Prompt: "look", Attachments: []runtimes.Attachment{
		{Kind: rpc.AttachFile, Name: "x.txt", Path: "/tmp/x.txt"}}})
	if err != nil {
		t.Fatalf("a file after the refusal: %v", err)
	}
	evs := rec.until(t, isTurnEnd)
	if got := text(evs, rpc.PhaseText); !strings.HasSuffix(got, `[Attached files: "x.txt" at /tmp/x.txt]`) {
		t.Fatalf("the agent got %q", got)
	}
}
