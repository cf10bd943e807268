package runtimes

import (
	"fmt"

	"github.com/cdevd/cdevd/rpc"
)

// PageBytes bounds the stored bytes of the messages one Transcripts.Messages
// page holds: a page stops before the message that would take it past
// PageBytes, so that its reply is one frame of a few megabytes however
// long the transcript's lines (ten lines of 30 MB made one reply of 314 MB,
// held in memory whole and refused by clients). The client goes on from
// offset+len(messages), as has_more tells it. Always at least one message
// is served, and one bigger than this alone keeps its envelope but not its
// content (see Omitted). Stored bytes are what a store knows before it
// reads a line; the reply's JSON is not bigger in practice (a stored line
// holds more than its message, and replies are written without HTML
// escaping, so strings keep their stored size). 4 MiB: a quarter of the largest
// frame cdevd itself accepts (16 MiB), and well above a page of ordinary
// messages (50 of 20 KB), which it thus never cuts.
const PageBytes = 4 << 20

// Omitted is m, whose stored form takes stored bytes, with its content
// replaced by one text block saying so when stored is over PageBytes; m
// unchanged otherwise. Its id, uuid, type, time, role, model and usage are
// kept, so that a client places it, pairs it with its events, and counts
// it as before. Replaced rather than cut: a cut tool input, image or
// tool_result array is no longer valid JSON of its kind, and a cut text
// passes for the whole; a marker is unmistakable and the same for every
// runtime. The transcript itself keeps the whole message.
func Omitted(m rpc.Message, stored int) rpc.Message {
	if stored <= PageBytes {
		return m
	}
	m.Message.Content = []rpc.ContentBlock{{
		Type: rpc.BlockText,
		Text: fmt.Sprintf("[cdevd: this message is %d bytes, more than a page of messages carries (%d); its content is left out here and kept in the transcript]", stored, PageBytes),
	}}
	return m
}
