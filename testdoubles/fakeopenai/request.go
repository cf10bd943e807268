package fakeopenai

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Request is one recorded HTTP request; for /v1/responses its body is decoded.
type Request struct {
	fakeapi.HTTPRequest

	Model        string `json:"model"`
	Instructions string `json:"instructions"`
	Stream       bool   `json:"stream"`
	Input        []Item `json:"input"`
	Tools        []Tool `json:"tools"`
	ToolChoice   any    `json:"tool_choice"`
}

// Effort is the reasoning effort the request asked for (reasoning.effort),
// "" when none; read from the body only when asked, like fakeanthropic's.
func (r Request) Effort() string {
	var body struct {
		Reasoning struct {
			Effort string `json:"effort"`
		} `json:"reasoning"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Reasoning.Effort
}

// Item is one input item of the request's history: a message, a
// function_call, a function_call_output, a reasoning item, …
type Item struct {
	Type    string          `json:"type"`
	Role    string          `json:"role,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	// function_call and function_call_output
	Name      string          `json:"name,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
}

// Texts are a message's text parts (input_text, output_text), or the
// content itself when it is a plain string.
func (it Item) Texts() []string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" || p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return out
}

// Image is an image the model received, decoded from its data URL.
type Image struct {
	MediaType string
	Data      []byte
}

// Images are the input_image parts of the request's messages, in order.
// One whose URL is not a base64 data URL is returned with nil Data, for
// the test to fail on.
func (r Request) Images() []Image {
	var out []Image
	for _, it := range r.Input {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL string `json:"image_url"`
		}
		if json.Unmarshal(it.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if p.Type != "input_image" {
				continue
			}
			img := Image{}
			if meta, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL, "data:"), ","); ok && strings.HasSuffix(meta, ";base64") {
				img.MediaType = strings.TrimSuffix(meta, ";base64")
				img.Data, _ = base64.StdEncoding.DecodeString(data)
			}
			out = append(out, img)
		}
	}
	return out
}

// OutputText is a function_call_output's output as text: the string itself,
// or its text parts joined.
func (it Item) OutputText() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(it.Output, &parts) != nil {
		return string(it.Output)
	}
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// Tool is a tool the client offered: type function (Name), custom (Name), or
// a built-in such as web_search (no Name).
type Tool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// IsResponses reports whether this is a Responses API call.
func (r Request) IsResponses() bool {
	return r.Method == http.MethodPost && r.Path == "/v1/responses"
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

// synthetic reports whether a user message is context Codex adds itself
// (<environment_context>, <turn_aborted>, AGENTS.md instructions, …) rather
// than something the user typed.
func synthetic(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md instructions")
}

// LastUserText is the text the user typed last: the last text part of the
// last user message that is not context Codex added.
func (r Request) LastUserText() string {
	for i := len(r.Input) - 1; i >= 0; i-- {
		it := r.Input[i]
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		texts := it.Texts()
		for j := len(texts) - 1; j >= 0; j-- {
			if !synthetic(texts[j]) {
				return texts[j]
			}
		}
	}
	return ""
}

// CallOutput returns the function_call_output (or custom_tool_call_output)
// of the last input item when the request answers a tool call.
func (r Request) CallOutput() (Item, bool) {
	if len(r.Input) == 0 {
		return Item{}, false
	}
	last := r.Input[len(r.Input)-1]
	return last, last.Type == "function_call_output" || last.Type == "custom_tool_call_output"
}

// Transcript is the history's user and assistant texts (without Codex's own
// context messages) and function calls and outputs, in order, for asserting
// that a model saw an earlier turn.
func (r Request) Transcript() string {
	var sb strings.Builder
	for _, it := range r.Input {
		switch it.Type {
		case "message":
			if it.Role != "user" && it.Role != "assistant" {
				continue
			}
			for _, t := range it.Texts() {
				if it.Role == "user" && synthetic(t) {
					continue
				}
				sb.WriteString(it.Role + ": " + t + "\n")
			}
		case "function_call":
			sb.WriteString("call: " + it.Name + " " + it.Arguments + "\n")
		case "function_call_output", "custom_tool_call_output":
			sb.WriteString("output: " + it.OutputText() + "\n")
		}
	}
	return sb.String()
}
