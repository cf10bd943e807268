package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

var _ runtimes.TokenCounter = (*Store)(nil)

// tokenCountTag is in every token_count line and in few others: lines
// without it are not decoded.
var tokenCountTag = []byte(`"token_count"`)

// tokenCountLine is an event_msg token_count line as Codex writes it after
// a model call: info is null until the first call, and a rate-limit update
// repeats the last info unchanged.
type tokenCountLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type string `json:"type"`
		Info *struct {
			Total codexUsage `json:"total_token_usage"`
			Last  codexUsage `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// codexUsage is OpenAI's usage: input_tokens includes the cached ones.
type codexUsage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
}

// TokenCounts reads thread id's rollout for its token_count events: each
// model call's last_token_usage, once (a repeat, whose running total has
// not moved, is skipped), as Claude counts (input without the cache reads).
// It reads the whole rollout; the index holds message lines only.
func (s *Store) TokenCounts(ctx context.Context, dir, id string, since time.Time) ([]runtimes.TokenCount, error) {
	p, err := s.Path(dir, id)
	if err != nil {
		return nil, err
	}
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []runtimes.TokenCount
	var last codexUsage
	var sp jsonl.Splitter
	err = jsonl.ReadLines(f, &sp, make([]byte, jsonl.ChunkSize), func(_ int64, line []byte) {
		if ctx.Err() != nil || !bytes.Contains(line, tokenCountTag) {
			return
		}
		var l tokenCountLine
		if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" || l.Payload.Type != "token_count" ||
			l.Payload.Info == nil || l.Payload.Info.Total == last {
			return
		}
		last = l.Payload.Info.Total
		at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
		if err != nil || at.Before(since) {
			return
		}
		u := l.Payload.Info.Last
		out = append(out, runtimes.TokenCount{At: at, Usage: rpc.Usage{InputTokens: u.Input - u.Cached,
			OutputTokens: u.Output, CacheReadInputTokens: u.Cached, CacheCreationInputTokens: u.CacheWrite}})
	})
	if err == nil {
		err = ctx.Err()
	}
	return out, err
}
