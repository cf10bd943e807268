package runtimes

import (
	"strconv"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Attachment is an image or a file of a turn, checked and kept by cdevd:
// Path is cdevd's private copy, which the agent can read.
type Attachment struct {
	Kind     rpc.AttachmentKind
	MIMEType string // sniffed from the bytes, never the client's word
	Name     string // the client's name for it: shown to the agent, never a path
	Path     string
	Data     []byte // an image's bytes; nil for a file
}

// Images are the turn's image attachments, in order.
func (t Turn) Images() []Attachment {
	var out []Attachment
	for _, a := range t.Attachments {
		if a.Kind == rpc.AttachImage {
			out = append(out, a)
		}
	}
	return out
}

// Text is the prompt as an adapter writes it: the user's text, then one
// line naming each attached file and the path the agent may read it at
// (a CLI has no native form for an arbitrary file; the agent reads it with
// its own tools). The app's "[Attached images: …]" convention, for files.
func (t Turn) Text() string {
	var files []string
	for _, a := range t.Attachments {
		if a.Kind != rpc.AttachFile {
			continue
		}
		if a.Name != "" {
			files = append(files, strconv.Quote(a.Name)+" at "+a.Path)
		} else {
			files = append(files, a.Path)
		}
	}
	if len(files) == 0 {
		return t.Prompt
	}
	return t.Prompt + "\n\n[Attached files: " + strings.Join(files, ", ") + "]"
}
