package openrpc

import (
	"reflect"

	"github.com/cdevd/cdevd/rpc"
)

// customSchemas describes the wire types that are unions: Go has one struct
// for them, the wire has one shape per value of a key field.
var customSchemas = map[reflect.Type]func(*reflector) (*schema, error){
	reflect.TypeFor[rpc.ContentBlock]():  contentBlock,
	reflect.TypeFor[InvalidParamsData](): invalidParamsData,
}

// contentBlock is a oneOf keyed by type, so that generated clients get one
// type per kind of block. Only type is required: the other fields are
// omitted when empty. Each kind is a component of its own; a tool result's
// blocks are text or images, never tool results, so the union is not
// recursive (dereferencing tools do not terminate on recursive schemas).
func contentBlock(r *reflector) (*schema, error) {
	str := func(doc string) *schema { return &schema{Type: "string", Description: doc} }
	block := func(kind rpc.BlockType, title string, props map[string]*schema) *schema {
		props["type"] = &schema{Type: "string", Enum: []string{string(kind)}}
		r.components[title] = &schema{Title: title, Type: "object", Properties: props, Required: []string{"type"}}
		return &schema{Ref: schemaRefPrefix + title}
	}
	text := block(rpc.BlockText, "TextBlock", map[string]*schema{"text": str("")})
	toolDiff, err := r.schemaOf(reflect.TypeFor[rpc.ToolDiff]())
	if err != nil {
		return nil, err
	}
	image := block(rpc.BlockImage, "ImageBlock", map[string]*schema{
		"source": {Type: "object", Description: "The image data or its location, as the model API gives it."},
	})
	return &schema{
		Description: "One block of a message, keyed by type.",
		OneOf: []*schema{
			text,
			block(rpc.BlockThinking, "ThinkingBlock", map[string]*schema{"thinking": str("")}),
			block(rpc.BlockToolUse, "ToolUseBlock", map[string]*schema{
				"id":    str("The tool call's id; the matching tool_result's tool_use_id."),
				"name":  str("The tool's name."),
				"input": {Type: "object", Description: "The tool's input."},
			}),
			block(rpc.BlockToolResult, "ToolResultBlock", map[string]*schema{
				"tool_use_id": str("The id of the tool_use block this answers."),
				"content": {Description: "The tool's output: text, or text and image blocks.", OneOf: []*schema{
					{Type: "string"},
					{Type: "array", Items: &schema{OneOf: []*schema{text, image}}},
				}},
				"is_error":  {Type: "boolean"},
				"exit_code": {Type: "integer", Description: "A command's exit status, where the runtime reports one (Codex); absent when unknown."},
				"diffs": {Type: "array", Description: "The files the tool changed, where the runtime reports their text before and after (ACP agents' diff content).",
					Items: toolDiff},
			}),
			image,
		},
	}, nil
}
