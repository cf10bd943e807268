package rpc

import "fmt"

// AttachmentKind is what an attachment is to the agent: an image the model
// sees, or a file the agent may read.
type AttachmentKind string

// Attachment kinds.
const (
	AttachImage AttachmentKind = "image"
	AttachFile  AttachmentKind = "file"
)

// Enum lists the values of AttachmentKind.
func (AttachmentKind) Enum() []string { return []string{"image", "file"} }

// Attachment is one image or file sent with a turn (session/send, or
// session/start's first turn): inline (data) or an upload's id
// (POST /api/images), exactly one of the two.
type Attachment struct {
	Kind     AttachmentKind `json:"kind"`
	ID       string         `json:"id,omitempty" doc:"An upload's id (POST /api/images)."`
	Data     string         `json:"data,omitempty" doc:"The content, base64 (standard alphabet, padded). A WebSocket frame is at most 16 MiB: larger content is uploaded."`
	MIMEType string         `json:"mime_type,omitempty" doc:"Informative only: cdevd takes an image's type from its bytes."`
	Name     string         `json:"name,omitempty" doc:"Shown to the agent beside a file's path; never part of a path."`
}

// UnsupportedAttachment refuses an attachment kind the routed runtime
// cannot take; the data names the kinds it does take.
func UnsupportedAttachment(field string, kind AttachmentKind, agentType string, supported []AttachmentKind) *Error {
	e := InvalidParams(field, fmt.Sprintf("%s does not accept %q attachments", agentType, kind))
	data := e.Data.(map[string]any)
	data["value"], data["agent_type"] = string(kind), agentType
	data["supported"] = append([]AttachmentKind{}, supported...) // [] rather than null when none
	return e
}
