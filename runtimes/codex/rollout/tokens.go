package rollout

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"time"
	"unsafe"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

var _ runtimes.TokenCounter = (*Store)(nil)

// TokenCounts is each model call of thread id recorded at or after since:
// its token_count event's last_token_usage, once (a repeat, whose running
// total has not moved, is skipped), as Claude counts (input without the
// cache reads). The index gathers them with the messages (tokens), so
// usage/summary reads the cached, or persisted, index rather than the
// whole rollout.
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

// tokenCountTag is in every token_count line and in few others: a line
// classify cannot vouch for is decoded for its count only if it holds it.
var tokenCountTag = []byte(`"token_count"`)

// tokenInfo is a token_count line's info: null until the first model
// call, and repeated unchanged by a rate-limit update.
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

// call is one model call's usage, as a token_count line records it.
type call struct {
	sec, nsec int64 // when; nsec is -1 for a time that is not RFC 3339 (not counted)
	usage     rpc.Usage
}

// tokens is what an index gathers of token_count lines. Whether a line
// counts depends on the running total of the one before, which the part of
// a big file scanned apart does not know: the first of each part is kept
// aside (first, with its total) for merge to decide.
type tokens struct {
	seen       bool // a token_count with info: first is set
	first      call
	firstTotal codexUsage
	calls      []call     // the counted ones after first
	last       codexUsage // the running total of the last one
}

// countKeys are the members of a token_count line that addCount reads, at
// each level (classify has read the types).
var (
	countLineKeys    = []string{"timestamp", "payload"}
	countPayloadKeys = []string{"info"}
)

// addCount takes in b, a line classify found to be an event_msg
// token_count, reading only its time and info, without copying them: a
// 100 MB rollout holds thousands, and decoding each with quickLine made a
// first scan's CPU 8.4 ms per 10 MB where this makes it 6.0, and no counts
// at all 5.7 (BenchmarkClassify, cpu-ms/op, a loaded 2-core machine). A
// shape it does not read (an escape in the time, a null info) goes to add.
func (t *tokens) addCount(b []byte) {
	var ts []byte
	var in tokenInfo
	hasInfo := false
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
	end := jsonl.Known(b, lead, countLineKeys, func(k, at int) int {
		if k == 0 {
			e := jsonl.ValueEnd(b, at)
			if e < 0 || b[at] != '"' || bytes.IndexByte(b[at:e], '\\') >= 0 {
				return -1
			}
			ts = b[at+1 : e-1]
			return e
		}
		return jsonl.Known(b, at, countPayloadKeys, func(_, at int) int {
			hasInfo = true
			return quickInfo(b, at, &in)
		})
	})
	if !jsonl.Whole(b, end) || !hasInfo {
		t.add(b)
		return
	}
	t.count(string(ts), &in)
}

// add takes in the token_count line b (any other line is left out).
func (t *tokens) add(b []byte) {
	// Any error of encoding/json leaves a line out, as TokenCounts did
	// when it decoded only the members it reads.
	l, ok := quickLine(b)
	if !ok {
		ok = json.Unmarshal(b, &l) == nil
	}
	if ok && l.Type == "event_msg" && l.Payload.Type == "token_count" && l.Payload.Info != nil {
		t.count(l.Timestamp, l.Payload.Info)
	}
}

// count takes in a token_count at time ts whose info is info.
func (t *tokens) count(ts string, info *tokenInfo) {
	if t.seen && info.Total == t.last {
		return
	}
	u := info.Last
	c := call{nsec: -1, usage: rpc.Usage{InputTokens: u.Input - u.Cached, OutputTokens: u.Output,
		CacheReadInputTokens: u.Cached, CacheCreationInputTokens: u.CacheWrite}}
	if at, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		c.sec, c.nsec = at.Unix(), int64(at.Nanosecond())
	}
	if !t.seen {
		t.seen, t.first, t.firstTotal = true, c, info.Total
	} else {
		t.calls = append(t.calls, c)
	}
	t.last = info.Total
}

// merge takes in the tokens of the part of the file that follows t's.
func (t *tokens) merge(y *tokens) {
	switch {
	case !y.seen:
	case !t.seen:
		*t = *y
	default:
		if y.firstTotal != t.last {
			t.calls = append(t.calls, y.first)
		}
		t.calls = append(t.calls, y.calls...)
		t.last = y.last
	}
}

// each calls fn with every call of a file's whole index that counts, in
// order: the first counts unless its total is zero, where the running
// total starts.
func (t *tokens) each(fn func(call)) {
	if t.seen && t.firstTotal != (codexUsage{}) {
		fn(t.first)
	}
	for _, c := range t.calls {
		fn(c)
	}
}

// size is the memory t takes.
func (t *tokens) size() int64 { return int64(cap(t.calls)) * int64(unsafe.Sizeof(call{})) }

// fields are what a persisted index keeps of c.
func (c *call) fields() []*int64 {
	u := &c.usage
	return []*int64{&c.sec, &c.nsec, &u.InputTokens, &u.OutputTokens, &u.CacheReadInputTokens, &u.CacheCreationInputTokens}
}

// fields are what a persisted index keeps of t besides its calls.
func (t *tokens) fields() []*int64 {
	f, l := &t.firstTotal, &t.last
	return append(t.first.fields(), &f.Input, &f.Cached, &f.CacheWrite, &f.Output, &l.Input, &l.Cached, &l.CacheWrite, &l.Output)
}

// appendTo appends t for a persisted index; readFrom reads it back.
func (t *tokens) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(append(b, boolByte(t.seen)), uint64(len(t.calls)))
	for _, v := range t.fields() {
		b = binary.AppendVarint(b, *v)
	}
	for i := range t.calls {
		for _, v := range t.calls[i].fields() {
			b = binary.AppendVarint(b, *v)
		}
	}
	return b
}

func (t *tokens) readFrom(r *jsonl.FactReader) {
	t.seen = r.Byte() != 0
	n := r.Uvarint()
	for _, v := range t.fields() {
		*v = r.Varint()
	}
	if n > uint64(len(r.B)) { // each takes bytes
		r.Bad = true
		return
	}
	t.calls = make([]call, n)
	for i := range t.calls {
		for _, v := range t.calls[i].fields() {
			*v = r.Varint()
		}
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
