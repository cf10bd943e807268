package transcript

import (
	"bytes"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Keys of what quickLine reads, at each level of a message line.
var (
	quickLineKeys    = []string{"type", "uuid", "timestamp", "isMeta", "isSidechain", "message"}
	quickMessageKeys = []string{"id", "role", "model", "content", "usage"}
	quickBlockKeys   = []string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error", "source"}
	quickUsageKeys   = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)

// quickLine decodes a message line as encoding/json decodes it into
// decodedLine, in one pass and without reflection (jsonl.Known): the
// decoder, which validated each line before decoding it, was two thirds of
// a page of an indexed transcript. It takes the shapes Claude Code writes;
// anything else (ok false) goes to encoding/json. It does not validate
// what it skips, so a line whose unread members are not valid JSON is
// shown (the index counted it) where encoding/json would have dropped it;
// what a page passes on raw (a tool's input, a tool result's content, an
// image's source) is validated.
func quickLine(b []byte) (decodedLine, bool) {
	var l decodedLine
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
	end := jsonl.Known(b, lead, quickLineKeys, func(k, at int) int {
		switch quickLineKeys[k] {
		case "type":
			return jsonl.String(b, at, &l.Type)
		case "uuid":
			return jsonl.String(b, at, &l.UUID)
		case "timestamp":
			return jsonl.String(b, at, &l.Timestamp)
		case "isMeta":
			return jsonl.Bool(b, at, &l.IsMeta)
		case "isSidechain":
			return jsonl.Bool(b, at, &l.IsSidechain)
		}
		l.Message = new(decodedMessage)
		return quickMessage(b, at, l.Message)
	})
	if !jsonl.Whole(b, end) {
		return decodedLine{}, false
	}
	return l, true
}

// quickMessage reads the API message at b[at] into *m.
func quickMessage(b []byte, at int, m *decodedMessage) int {
	return jsonl.Known(b, at, quickMessageKeys, func(k, at int) int {
		switch quickMessageKeys[k] {
		case "id":
			return jsonl.String(b, at, &m.ID)
		case "role":
			return jsonl.String(b, at, &m.Role)
		case "model":
			return jsonl.String(b, at, &m.Model)
		case "content": // a typed prompt's string goes the long way
			return jsonl.Array(b, at, func() { m.Content = []apiBlock{} }, func(at int) int {
				var bl apiBlock
				e := quickBlock(b, at, &bl)
				m.Content = append(m.Content, bl)
				return e
			})
		}
		u := new(rpc.Usage)
		m.Usage = u
		return jsonl.Known(b, at, quickUsageKeys, func(k, at int) int {
			return jsonl.Int(b, at, [...]*int64{&u.InputTokens, &u.OutputTokens, &u.CacheCreationInputTokens, &u.CacheReadInputTokens}[k])
		})
	})
}

// quickBlock reads the content block at b[at] into *bl.
func quickBlock(b []byte, at int, bl *apiBlock) int {
	return jsonl.Known(b, at, quickBlockKeys, func(k, at int) int {
		switch quickBlockKeys[k] {
		case "type":
			return jsonl.String(b, at, &bl.Type)
		case "text":
			return jsonl.String(b, at, &bl.Text)
		case "thinking":
			return jsonl.String(b, at, &bl.Thinking)
		case "id":
			return jsonl.String(b, at, &bl.ID)
		case "name":
			return jsonl.String(b, at, &bl.Name)
		case "input":
			return jsonl.Raw(b, at, (*[]byte)(&bl.Input))
		case "tool_use_id":
			return jsonl.String(b, at, &bl.ToolUseID)
		case "content":
			return jsonl.Raw(b, at, (*[]byte)(&bl.Content))
		case "is_error":
			return jsonl.Bool(b, at, &bl.IsError)
		case "source":
			return jsonl.Raw(b, at, (*[]byte)(&bl.Source))
		}
		return -1
	})
}
