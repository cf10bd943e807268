package rollout

import (
	"context"
	"encoding/binary"
	"errors"
	"time"
	"unsafe"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// indexVersion names what add gathers (history.Format's Version).
const indexVersion = "codex-rollout-4"

// index is what one scan of a rollout learned: where its message lines are
// (the kept Lines) and what List reports.
type index struct {
	lineindex.Index
	id, cwd, prompt string
	tok             tokens // the model calls' usage
	// The line being added: add's own escaped to the heap (the schema
	// fills it through func values), an allocation a line.
	line Line
}

// add takes one line into the index, reporting whether it is a message.
func (x *index) add(b []byte) bool {
	l := &x.line
	defer func() { *l = Line{} }() // it borrows from b
	exact, err := readLine(x.Shape(), b, l)
	if err != nil {
		return false
	}
	switch p := &l.Payload; {
	case l.Type == "session_meta" && x.cwd == "" && p.Cwd != "":
		x.id, x.cwd = p.ID, p.Cwd // the first that names a cwd
	case exact && l.Type == "event_msg" && p.Type == "token_count" && p.Info != nil:
		x.tok.count(l.Timestamp, p.Info) // only from a line encoding/json reads whole
	case x.prompt == "":
		x.prompt = prompt(*l)
	}
	return isMessage(*l)
}

// Merge takes in the index of the part of the file that follows x's
// (lineindex.Indexed): the first session_meta and prompt stay.
func (x *index) Merge(y *index) {
	if x.cwd == "" {
		x.id, x.cwd = y.id, y.cwd
	}
	if x.prompt == "" {
		x.prompt = y.prompt
	}
	x.tok = append(x.tok, y.tok...)
}

// Expect and Finish do nothing (lineindex.Indexed): x sizes nothing ahead
// and puts nothing off. Size is the memory x takes besides its lines.
func (x *index) Expect(part, total float64) {}
func (x *index) Finish()                    {}
func (x *index) Size() int64                { return int64(len(x.id)+len(x.cwd)+len(x.prompt)) + x.tok.size() }

// AppendFacts appends what x gathered besides its lines (lineindex.Indexed);
// ReadFacts reads it back.
func (x *index) AppendFacts(b []byte) []byte {
	for _, s := range []string{x.id, x.cwd, x.prompt} {
		b = lineindex.AppendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(x.tok)))
	for i := range x.tok {
		for _, v := range x.tok[i].fields() {
			b = binary.AppendVarint(b, *v)
		}
	}
	return b
}

func (x *index) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	for _, s := range []*string{&x.id, &x.cwd, &x.prompt} {
		*s = r.String()
	}
	n := r.Uvarint()
	if n > uint64(len(r.B)) { // each call takes bytes
		n, r.Bad = 0, true
	}
	x.tok = make(tokens, n)
	for i := range x.tok {
		for _, v := range x.tok[i].fields() {
			*v = r.Varint()
		}
	}
	if r.Bad || len(r.B) != 0 {
		return errors.New("bad rollout facts")
	}
	return nil
}

var _ runtimes.TokenCounter = (*Store)(nil)

// TokenCounts is each model call of thread id recorded at or after since:
// its token_count's last_token_usage, once (a repeat, whose running total
// has not moved, is skipped), as Claude counts (input without the cache
// reads). The index gathers them, so usage/summary reads the cached or
// persisted index rather than the whole rollout.
func (s *Store) TokenCounts(ctx context.Context, dir, id string, since time.Time) ([]runtimes.TokenCount, error) {
	_, x, err := s.Find(ctx, dir, id)
	if err != nil {
		return nil, err
	}
	var out []runtimes.TokenCount
	x.tok.each(func(c call) {
		if c.nsec >= 0 {
			if at := time.Unix(c.sec, c.nsec); !at.Before(since) {
				out = append(out, runtimes.TokenCount{At: at, Usage: c.usage})
			}
		}
	})
	return out, nil
}

// tokenInfo is a token_count's info: null until the first model call,
// repeated unchanged by a rate-limit update.
type tokenInfo struct {
	Total codexUsage `json:"total_token_usage"`
	Last  codexUsage `json:"last_token_usage"`
}

// codexUsage is OpenAI's usage: input_tokens includes the cached ones.
type codexUsage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
}

var (
	infoSchema = jsonl.NewSchema(
		jsonl.StructKey("total_token_usage", func(in *tokenInfo) *codexUsage { return &in.Total }, usageSchema),
		jsonl.StructKey("last_token_usage", func(in *tokenInfo) *codexUsage { return &in.Last }, usageSchema),
	)
	usageSchema = jsonl.NewSchema(
		jsonl.IntKey("input_tokens", func(u *codexUsage) *int64 { return &u.Input }),
		jsonl.IntKey("cached_input_tokens", func(u *codexUsage) *int64 { return &u.Cached }),
		jsonl.IntKey("cache_write_input_tokens", func(u *codexUsage) *int64 { return &u.CacheWrite }),
		jsonl.IntKey("output_tokens", func(u *codexUsage) *int64 { return &u.Output }),
	)
)

// call is one model call's usage, as a token_count line records it.
type call struct {
	sec, nsec int64 // when; nsec is -1 for a time that is not RFC 3339 (not counted)
	usage     rpc.Usage
	total     codexUsage // the running total after it
}

// tokens is what an index gathers of token_count lines: each whose running
// total moved from the line before's. A part of a big file scanned apart
// does not know the total before it and keeps its first line's, which each
// leaves out if it is a repeat: merging parts is appending them.
type tokens []call

func (t *tokens) count(ts string, info *tokenInfo) {
	if n := len(*t); n > 0 && (*t)[n-1].total == info.Total {
		return
	}
	u := info.Last
	c := call{nsec: -1, total: info.Total, usage: rpc.Usage{InputTokens: u.Input - u.Cached, OutputTokens: u.Output,
		CacheReadInputTokens: u.Cached, CacheCreationInputTokens: u.CacheWrite}}
	if at, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		c.sec, c.nsec = at.Unix(), int64(at.Nanosecond())
	}
	*t = append(*t, c)
}

// each calls fn with every call of a whole file's index that counts, in
// order: one whose total moved (from zero for the first).
func (t tokens) each(fn func(call)) {
	var last codexUsage
	for _, c := range t {
		if c.total != last {
			fn(c)
		}
		last = c.total
	}
}

func (t tokens) size() int64 { return int64(cap(t)) * int64(unsafe.Sizeof(call{})) }

// fields are what a persisted index keeps of c.
func (c *call) fields() []*int64 {
	u, s := &c.usage, &c.total
	return []*int64{&c.sec, &c.nsec, &u.InputTokens, &u.OutputTokens, &u.CacheReadInputTokens, &u.CacheCreationInputTokens,
		&s.Input, &s.Cached, &s.CacheWrite, &s.Output}
}
