package sessions

import (
	"fmt"

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
