package rollout

import "github.com/cdevd/cdevd/internal/jsonl"

// The schemas of a line, at each level (jsonl.Schema): what quickLine
// reads of it, as encoding/json decodes it into Line.
var (
	lineSchema = jsonl.NewSchema(
		jsonl.StringKey("timestamp", func(l *Line) *string { return &l.Timestamp }),
		jsonl.StringKey("type", func(l *Line) *string { return &l.Type }),
		jsonl.StructKey("payload", func(l *Line) *Payload { return &l.Payload }, payloadSchema),
	)
	payloadSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(p *Payload) *string { return &p.Type }),
		jsonl.StringKey("id", func(p *Payload) *string { return &p.ID }),
		jsonl.StringKey("cwd", func(p *Payload) *string { return &p.Cwd }),
		jsonl.PtrKey("item", func(p *Payload) **Item { return &p.Item }, itemSchema),
		jsonl.SliceKey("summary", func(p *Payload) *[]textPart { return &p.Summary }, textSchema),
	)
	textSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(t *textPart) *string { return &t.Type }),
		jsonl.StringKey("text", func(t *textPart) *string { return &t.Text }),
	)
	itemSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(it *Item) *string { return &it.Type }),
		jsonl.StringKey("id", func(it *Item) *string { return &it.ID }),
		jsonl.SliceKey("content", func(it *Item) *[]textPart { return &it.Content }, textSchema),
		jsonl.StringsKey("command", func(it *Item) *[]string { return &it.Command }),
		jsonl.StringKey("status", func(it *Item) *string { return &it.Status }),
		jsonl.StringKey("aggregated_output", func(it *Item) *string { return &it.AggregatedOutput }),
		jsonl.FuncKey("exit_code", func(b []byte, at int, it *Item) int {
			var n int64
			e := jsonl.Int(b, at, &n)
			if e < 0 || int64(int(n)) != n { // encoding/json refuses what overflows an int
				return -1
			}
			it.ExitCode = new(int)
			*it.ExitCode = int(n)
			return e
		}),
		jsonl.SliceKey("changes", func(it *Item) *[]ChangeEntry { return &it.Changes }, changeSchema),
	)
	changeSchema = jsonl.NewSchema(
		jsonl.StringKey("path", func(c *ChangeEntry) *string { return &c.Path }),
		jsonl.StructKey("kind", func(c *ChangeEntry) *ChangeKind { return &c.Kind }, kindSchema),
		jsonl.StringKey("diff", func(c *ChangeEntry) *string { return &c.Diff }),
	)
	kindSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(k *ChangeKind) *string { return &k.Type }),
		jsonl.StringKey("move_path", func(k *ChangeKind) *string { return &k.MovePath }),
	)
)

// quickLine decodes a rollout line as encoding/json decodes it into Line,
// in one pass and without reflection (lineSchema): the decoder, which
// validated each line before decoding it, was two thirds of a page of an
// indexed rollout in the daemon. It takes the shapes Codex writes; anything
// else (ok false) goes to encoding/json. It does not validate what it
// skips, so a line whose unread members are not valid JSON is read where
// encoding/json would have refused it.
func quickLine(b []byte) (Line, bool) {
	var l Line
	ok := lineSchema.Read(b, &l)
	return l, ok
}

// pageLine is ParseLine by way of quickLine when it takes b.
func pageLine(b []byte) (Line, error) {
	if l, ok := quickLine(b); ok {
		return l, nil
	}
	return ParseLine(b)
}
