package transcript

import (
	"encoding/json"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// facts is what an index needs of one line, read by classify without
// decoding it: 97% of a first index build went to encoding/json (pprof of
// BenchmarkIndexBuild), although only a handful of top-level members
// matter and the bulk of a line is the message it carries.
type facts struct {
	typ     jsonl.Text      // "type", when a string (without escapes)
	meta    bool            // "isMeta" is true
	side    bool            // "isSidechain" is true
	message json.RawMessage // "message" as written, not decoded
	branch  jsonl.Text      // "gitBranch", when a string (without escapes)
}

// isMessage is isMessage(ParseLine(b)) for a line classify understood.
func (f *facts) isMessage() bool {
	return (string(f.typ) == "user" || string(f.typ) == "assistant") && !f.meta && !f.side &&
		len(f.message) > 0 && string(f.message) != "null"
}

// factSchema is what classify reads of a line: its top-level members only,
// a value of another type left zero, as ParseLine (which forgives type
// errors) leaves it.
var factSchema = jsonl.NewSchema(
	jsonl.TextKey("type", func(f *facts) *jsonl.Text { return &f.typ }),
	jsonl.TrueKey("isMeta", func(f *facts) *bool { return &f.meta }),
	jsonl.TrueKey("isSidechain", func(f *facts) *bool { return &f.side }),
	jsonl.BorrowedKey("message", func(f *facts) *json.RawMessage { return &f.message }),
	jsonl.TextKey("gitBranch", func(f *facts) *jsonl.Text { return &f.branch }),
)

// classify reads the facts of line b. ok is false when only a real decoder
// can say what ParseLine would make of b: not an object of the right shape,
// a key that encoding/json would match to one of factSchema's without
// spelling it exactly (it folds case, and decodes escapes), a fact
// repeated, or a string fact with escapes. For valid JSON, an ok answer is
// exactly what ParseLine and isMessage say; FuzzClassify holds it to that.
func classify(b []byte) (f facts, ok bool) { return classifyIn(nil, b) }

// classifyIn is classify with the keys of the lines read before b
// remembered in sh (nil: none), as a scan has them.
func classifyIn(sh *jsonl.Shape, b []byte) (f facts, ok bool) {
	ok = factSchema.ReadShaped(sh, b, &f)
	return f, ok
}
