package fakeanthropic

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Request is one recorded HTTP request; for /v1/messages its body is decoded.
type Request struct {
	fakeapi.HTTPRequest

	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools"`
	Thinking  json.RawMessage `json:"thinking"`
}

// Effort is the reasoning effort the request asked for
// (output_config.effort), "" when none. It is read from the body only
// when asked: a member the fake decodes with every request could refuse a
// request whose output_config has another shape.
func (r Request) Effort() string {
	var body struct {
		OutputConfig struct {
			Effort string `json:"effort"`
		} `json:"output_config"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.OutputConfig.Effort
}

// Message is one message of the request's history.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is a message's blocks; a plain string decodes as one text block.
type Content []Block

// UnmarshalJSON accepts both forms the API allows.
func (c *Content) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// Block is one content block (text, thinking, tool_use, tool_result, …).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Source    *ImageSource    `json:"source,omitempty"`
}

// ImageSource is an image block's source: base64 data and its type.
type ImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// Image is an image the model received, decoded.
type Image struct {
	MediaType string
	Data      []byte
	// InToolResult: the image came back from a tool (the CLI's Read of an
	// image file), not from the user's message.
	InToolResult bool
}

// Images are the request's images, in order: those of user messages and
// those tool results carry. An image that does not decode is returned
// with nil Data, for the test to fail on.
func (r Request) Images() []Image {
	var out []Image
	add := func(b Block, inTool bool) {
		if b.Type != "image" || b.Source == nil {
			return
		}
		data, _ := base64.StdEncoding.DecodeString(b.Source.Data)
		out = append(out, Image{MediaType: b.Source.MediaType, Data: data, InToolResult: inTool})
	}
	for _, m := range r.Messages {
		for _, b := range m.Content {
			add(b, false)
			if b.Type == "tool_result" {
				var inner Content
				if json.Unmarshal(b.Content, &inner) == nil {
					for _, ib := range inner {
						add(ib, true)
					}
				}
			}
		}
	}
	return out
}

// ResultText is a tool_result's content as text: the string itself, or its
// text blocks joined.
func (b Block) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts Content
	if json.Unmarshal(b.Content, &parts) != nil {
		return string(b.Content)
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Tool is a tool the client offered.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// IsMessages reports whether this is a Messages API call (any query string).
func (r Request) IsMessages() bool {
	return r.Method == http.MethodPost && r.Path == "/v1/messages"
}

// HasTool reports whether the client offered the named tool.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// LastUserText is the text the user typed last: the last text block of the
// last user message that has one, skipping the <system-reminder> blocks
// Claude Code adds. The last message is not always the user's prompt (it may
// carry tool results), hence the search backwards.
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		for j := len(m.Content) - 1; j >= 0; j-- {
			b := m.Content[j]
			if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
				return b.Text
			}
		}
	}
	return ""
}

// ToolResult returns the tool_result block of the last message when the
// request answers a tool call.
func (r Request) ToolResult() (Block, bool) {
	if len(r.Messages) == 0 {
		return Block{}, false
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role != "user" {
		return Block{}, false
	}
	for _, b := range last.Content {
		if b.Type == "tool_result" {
			return b, true
		}
	}
	return Block{}, false
}

// Transcript is every text block of the history, in order, for asserting
// that a model saw an earlier turn.
func (r Request) Transcript() string {
	var sb strings.Builder
	for _, m := range r.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				sb.WriteString(m.Role + ": " + b.Text + "\n")
			case "tool_result":
				sb.WriteString(m.Role + ": [tool_result] " + b.ResultText() + "\n")
			}
		}
	}
	return sb.String()
}
