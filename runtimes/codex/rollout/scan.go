package rollout

import (
	"bytes"
	"unicode/utf8"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// facts is what an index needs of one line, read by classify without
// decoding it: 76% of a first read of a big rollout went to encoding/json
// in ParseLine (pprof of BenchmarkFirstPage), although a line's kind is
// three short strings and the bulk of a line is its payload's text.
type facts struct {
	typ  jsonl.Text // "type"
	ptyp jsonl.Text // "payload"."type"
	ityp jsonl.Text // "payload"."item"."type"
	item bool       // "payload"."item" is there and not null
	// What a token_count line records (see tokens): its time, and its
	// info when that is an object (counted).
	ts      jsonl.Text
	counted bool
	info    tokenInfo
}

// isMessage is isMessage(ParseLine(b)) for a line classify understood.
func (f *facts) isMessage() bool {
	_, ok := messageType(f.typ, f.ptyp, f.ityp, f.item)
	return ok
}

// The schemas of what classify reads at each level of a line, all into
// one facts. A type that is not a string, or a payload or item that is not
// an object, is forgiven as ParseLine forgives it (its fact is left zero);
// a token_count's time and info are not, as TokenCounts leaves out a line
// encoding/json cannot decode.
var (
	factSchema = jsonl.NewSchema(
		jsonl.TextKey("type", func(f *facts) *jsonl.Text { return &f.typ }),
		jsonl.FuncKey("payload", func(b []byte, at int, f *facts) int { return objectOr(b, at, f, payloadFactSchema) }),
		jsonl.FuncKey("timestamp", func(b []byte, at int, f *facts) int {
			e := jsonl.ValueEnd(b, at)
			if e < 0 || b[at] != '"' || bytes.IndexByte(b[at:e], '\\') >= 0 || !utf8.Valid(b[at:e]) {
				return -1
			}
			f.ts = b[at+1 : e-1]
			return e
		}),
	)
	payloadFactSchema = jsonl.NewSchema(
		jsonl.TextKey("type", func(f *facts) *jsonl.Text { return &f.ptyp }),
		jsonl.FuncKey("item", func(b []byte, at int, f *facts) int {
			e := objectOr(b, at, f, itemFactSchema)
			// Any value but null gives ParseLine a non-nil Item.
			f.item = e >= 0 && string(b[at:e]) != "null"
			return e
		}),
		jsonl.FuncKey("info", func(b []byte, at int, f *facts) int {
			if b[at] == '{' {
				f.counted = true
				return infoSchema.ReadAt(b, at, &f.info)
			}
			if e := jsonl.ValueEnd(b, at); e >= 0 && string(b[at:e]) == "null" {
				return e
			}
			return -1
		}),
	)
	itemFactSchema = jsonl.NewSchema(jsonl.TextKey("type", func(f *facts) *jsonl.Text { return &f.ityp }))
)

// objectOr reads the object at b[at] into f by s, or skips a value of
// another type (which leaves ParseLine's field zero); it returns where the
// value ends, or -1 when only a decoder can tell.
func objectOr(b []byte, at int, f *facts, s *jsonl.Schema[facts]) int {
	if b[at] != '{' {
		return jsonl.ValueEnd(b, at)
	}
	return s.ReadAt(b, at, f)
}

// classify reads the facts of line b. ok is false when only a real decoder
// can say what ParseLine would make of b: an object of the wrong shape at a
// level classify reads, a key that encoding/json would match to one it
// reads without spelling it exactly (it folds case and decodes escapes), a
// key repeated (the decoder merges repeated objects), or a string with
// escapes. For valid JSON, an ok answer is what ParseLine and isMessage say
// (FuzzClassify); a line invalid inside a value classify skips can still be
// ok.
func classify(b []byte) (f facts, ok bool) { return classifyIn(nil, b) }

// classifyIn is classify with the keys of the lines read before b
// remembered in sh (nil: none), as a scan has them.
func classifyIn(sh *jsonl.Shape, b []byte) (f facts, ok bool) {
	ok = factSchema.ReadShaped(sh, b, &f)
	return f, ok
}
