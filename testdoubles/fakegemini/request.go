package fakegemini

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Request is one recorded HTTP request; for streamGenerateContent its body
// (a GenerateContentRequest) is decoded and Model is taken from the path.
type Request struct {
	fakeapi.HTTPRequest
	Model string `json:"-"`

	Contents          []Content `json:"contents"`
	SystemInstruction *Content  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// Content is one turn of the history: role user or model, and its parts.
type Content struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one part of a content: text (maybe a thought), a function call or
// a function response.
type Part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *FunctionCallPart `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	InlineData       *Blob             `json:"inlineData,omitempty"`
}

// Blob is an inline part's data: an image the model receives.
type Blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

// Image is an image the model received, decoded.
type Image struct {
	MediaType string
	Data      []byte
}

// Images are the inlineData parts of the request's user contents, in
// order. One that does not decode is returned with nil Data.
func (r Request) Images() []Image {
	var out []Image
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.InlineData == nil {
				continue
			}
			data, _ := base64.StdEncoding.DecodeString(p.InlineData.Data)
			out = append(out, Image{MediaType: p.InlineData.MimeType, Data: data})
		}
	}
	return out
}

// FunctionCallPart is a functionCall part as the CLI sends it back in the
// history.
type FunctionCallPart struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// FunctionResponse is the result of a function call the CLI ran (or refused).
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// IsGenerate reports whether the request is a streaming generateContent call
// with alt=sse, the only route the fake serves.
func (r Request) IsGenerate() bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.Path, modelsPrefix) &&
		strings.HasSuffix(r.Path, streamSuffix) && r.RawQuery == "alt=sse"
}

// IsCountTokens reports whether the request is a countTokens call, which
// the CLI makes before sending a prompt with an image.
func (r Request) IsCountTokens() bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.Path, modelsPrefix) && strings.HasSuffix(r.Path, countSuffix)
}

// HasTool reports whether the request offered a function of that name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

// LastUserText is the last text part (thoughts excluded) of the last user
// content that has one: the prompt, which the CLI sends as the last part of a
// content whose first part may be its <session_context>; "" if none.
func (r Request) LastUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role != "user" {
			continue
		}
		for j := len(c.Parts) - 1; j >= 0; j-- {
			if p := c.Parts[j]; p.Text != "" && !p.Thought {
				return p.Text
			}
		}
	}
	return ""
}

// FunctionResponse returns the function response in the last content, if
// the request is the CLI returning a tool's result to the model.
func (r Request) FunctionResponse() (FunctionResponse, bool) {
	if len(r.Contents) == 0 {
		return FunctionResponse{}, false
	}
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			return *p.FunctionResponse, true
		}
	}
	return FunctionResponse{}, false
}

// Transcript renders the contents one part a line, for assertions:
// "user: hi", "model: ok", "call: name {args}", "response: name {json}".
func (r Request) Transcript() string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				b.WriteString("call: " + p.FunctionCall.Name + " " + string(p.FunctionCall.Args) + "\n")
			case p.FunctionResponse != nil:
				b.WriteString("response: " + p.FunctionResponse.Name + " " + string(p.FunctionResponse.Response) + "\n")
			case p.Thought:
			case p.Text != "":
				b.WriteString(c.Role + ": " + p.Text + "\n")
			}
		}
	}
	return b.String()
}
