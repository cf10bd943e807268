package rollout

import (
	"bytes"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// Keys of what quickLine reads, at each level of a rollout line.
var (
	quickLineKeys    = []string{"timestamp", "type", "payload"}
	quickPayloadKeys = []string{"type", "id", "cwd", "item", "summary", "name", "arguments", "input", "call_id", "output", "info"}
	quickItemKeys    = []string{"type", "id", "content", "command", "status", "aggregated_output", "exit_code", "changes"}
	quickTextKeys    = []string{"type", "text"}
	quickChangeKeys  = []string{"path", "kind", "diff"}
	quickKindKeys    = []string{"type", "move_path"}
	quickInfoKeys    = []string{"total_token_usage", "last_token_usage"}
	quickUsageKeys   = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens"}
)

// pageLine is ParseLine for a line of a page: quickLine when it takes b.
func pageLine(b []byte) (Line, error) {
	if l, ok := quickLine(b); ok {
		return l, nil
	}
	return ParseLine(b)
}

// quickLine decodes a rollout line as encoding/json decodes it into Line,
// in one pass and without reflection (jsonl.Known): the decoder, which
// validated each line before decoding it, was two thirds of a page of an
// indexed rollout in the daemon. It takes the shapes Codex writes; anything
// else (ok false) goes to encoding/json. It does not validate what it
// skips (nor a call's output, which no page shows), so a line whose unread
// members are not valid JSON is shown where encoding/json would have
// refused it.
func quickLine(b []byte) (Line, bool) {
	var l Line
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
	end := jsonl.Known(b, lead, quickLineKeys, func(k, at int) int {
		switch quickLineKeys[k] {
		case "timestamp":
			return jsonl.String(b, at, &l.Timestamp)
		case "type":
			return jsonl.String(b, at, &l.Type)
		}
		return quickPayload(b, at, &l.Payload)
	})
	if !jsonl.Whole(b, end) {
		return Line{}, false
	}
	return l, true
}

func quickPayload(b []byte, at int, p *Payload) int {
	return jsonl.Known(b, at, quickPayloadKeys, func(k, at int) int {
		switch quickPayloadKeys[k] {
		case "type":
			return jsonl.String(b, at, &p.Type)
		case "id":
			return jsonl.String(b, at, &p.ID)
		case "cwd":
			return jsonl.String(b, at, &p.Cwd)
		case "item":
			p.Item = new(Item)
			return quickItem(b, at, p.Item)
		case "summary":
			return quickParts(b, at, &p.Summary)
		case "name":
			return jsonl.String(b, at, &p.Name)
		case "arguments":
			return jsonl.String(b, at, &p.Arguments)
		case "input":
			return jsonl.String(b, at, &p.Input)
		case "call_id":
			return jsonl.String(b, at, &p.CallID)
		case "output":
			return jsonl.RawUnchecked(b, at, (*[]byte)(&p.Output))
		}
		p.Info = new(tokenInfo)
		return quickInfo(b, at, p.Info)
	})
}

// quickInfo reads the token_count info object at b[at] into *in.
func quickInfo(b []byte, at int, in *tokenInfo) int {
	return jsonl.Known(b, at, quickInfoKeys, func(k, at int) int {
		u := [...]*codexUsage{&in.Total, &in.Last}[k]
		return jsonl.Known(b, at, quickUsageKeys, func(k, at int) int {
			return jsonl.Int(b, at, [...]*int64{&u.Input, &u.Cached, &u.CacheWrite, &u.Output}[k])
		})
	})
}

func quickItem(b []byte, at int, it *Item) int {
	return jsonl.Known(b, at, quickItemKeys, func(k, at int) int {
		switch quickItemKeys[k] {
		case "type":
			return jsonl.String(b, at, &it.Type)
		case "id":
			return jsonl.String(b, at, &it.ID)
		case "content":
			return quickParts(b, at, &it.Content)
		case "command":
			return jsonl.Array(b, at, func() { it.Command = []string{} }, func(at int) int {
				var s string
				e := jsonl.String(b, at, &s)
				it.Command = append(it.Command, s)
				return e
			})
		case "status":
			return jsonl.String(b, at, &it.Status)
		case "aggregated_output":
			return jsonl.String(b, at, &it.AggregatedOutput)
		case "exit_code":
			var n int64
			e := jsonl.Int(b, at, &n)
			if e < 0 || int64(int(n)) != n {
				return -1
			}
			it.ExitCode = new(int)
			*it.ExitCode = int(n)
			return e
		}
		return jsonl.Array(b, at, func() { it.Changes = []ChangeEntry{} }, func(at int) int {
			var c ChangeEntry
			e := jsonl.Known(b, at, quickChangeKeys, func(k, at int) int {
				switch quickChangeKeys[k] {
				case "path":
					return jsonl.String(b, at, &c.Path)
				case "diff":
					return jsonl.String(b, at, &c.Diff)
				}
				return jsonl.Known(b, at, quickKindKeys, func(k, at int) int {
					return jsonl.String(b, at, [...]*string{&c.Kind.Type, &c.Kind.MovePath}[k])
				})
			})
			it.Changes = append(it.Changes, c)
			return e
		})
	})
}

// quickParts reads the array of text parts at b[at] into *dst.
func quickParts(b []byte, at int, dst *[]textPart) int {
	return jsonl.Array(b, at, func() { *dst = []textPart{} }, func(at int) int {
		var t textPart
		e := jsonl.Known(b, at, quickTextKeys, func(k, at int) int {
			return jsonl.String(b, at, [...]*string{&t.Type, &t.Text}[k])
		})
		*dst = append(*dst, t)
		return e
	})
}
