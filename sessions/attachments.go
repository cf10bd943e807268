package sessions

import (
	"fmt"
	"os"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// kindsOf are the kinds of a turn's attachments, in order.
func kindsOf(atts []runtimes.Attachment) []rpc.AttachmentKind {
	kinds := make([]rpc.AttachmentKind, len(atts))
	for i, a := range atts {
		kinds[i] = a.Kind
	}
	return kinds
}

// checkAttachments refuses, before anything starts, an attachment of a
// kind the runtime cannot take: the caller's mistake (-32602), naming the
// attachment and the kinds the runtime does take.
func checkAttachments(info runtimes.Info, kinds []rpc.AttachmentKind) error {
	for i, k := range kinds {
		if !info.AcceptsAttachment(k) {
			return rpc.UnsupportedAttachment(fmt.Sprintf("attachments[%d].kind", i), k, info.ID, info.Attachments)
		}
	}
	return nil
}

// queuedAttachments is how a queued prompt keeps its attachments: the
// files cdevd stored, without their bytes (a queue is written to disk).
func queuedAttachments(atts []runtimes.Attachment) []rpc.QueuedAttachment {
	var out []rpc.QueuedAttachment
	for _, a := range atts {
		out = append(out, rpc.QueuedAttachment{Kind: a.Kind, MIMEType: a.MIMEType, Name: a.Name, Path: a.Path})
	}
	return out
}

// queuedTurn is a queued prompt's turn, its images read again from where
// cdevd stored them. An attachment that expired while its prompt waited
// fails the turn (and pauses the queue, saying which) rather than running
// the prompt without it.
func queuedTurn(it rpc.QueueItem) (runtimes.Turn, error) {
	t := runtimes.Turn{Prompt: it.Prompt}
	for _, a := range it.Attachments {
		ra := runtimes.Attachment{Kind: a.Kind, MIMEType: a.MIMEType, Name: a.Name, Path: a.Path}
		if a.Kind == rpc.AttachImage {
			data, err := os.ReadFile(a.Path)
			if err != nil {
				return runtimes.Turn{}, fmt.Errorf("the queued prompt's attachment %q is gone (uploads expire after a day): %w", a.Name, err)
			}
			ra.Data = data
		}
		t.Attachments = append(t.Attachments, ra)
	}
	return t, nil
}
