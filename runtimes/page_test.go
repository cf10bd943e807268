package runtimes

import (
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// TestOmitted: a message stored in more than PageBytes keeps its envelope
// and gets one text block saying its size; one within is unchanged.
func TestOmitted(t *testing.T) {
	m := rpc.Message{ID: "1", UUID: "u", Type: rpc.MessageAssistant, Timestamp: "t",
		Message: rpc.MessageBody{Role: "assistant", Model: "m", Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: "hi"}}}}
	if got := Omitted(m, PageBytes); len(got.Message.Content) != 1 || got.Message.Content[0].Text != "hi" {
		t.Errorf("within the bound: %+v", got)
	}
	got := Omitted(m, PageBytes+1)
	if got.UUID != "u" || got.ID != "1" || got.Message.Role != "assistant" || got.Message.Model != "m" ||
		len(got.Message.Content) != 1 || !strings.Contains(got.Message.Content[0].Text, "4194305 bytes") {
		t.Errorf("over the bound: %+v", got)
	}
	if m.Message.Content[0].Text != "hi" {
		t.Error("the message passed in was changed")
	}
}
