package usage

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// store is a runtime's store sessions in one folder, as a reader gives
// them; reads counts the messages read.
type store struct {
	sessions map[string][]rpc.Message // oldest first
	updated  map[string]string
	reads    int
	fail     error
}

func (s *store) List(context.Context, string) ([]runtimes.Summary, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	var out []runtimes.Summary
	for id, ms := range s.sessions {
		out = append(out, runtimes.Summary{SessionID: id, MessageCount: len(ms), LastUpdated: s.updated[id]})
	}
	return out, nil
}

func (s *store) Messages(_ context.Context, _, id string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	ms := s.sessions[id]
	if !desc {
		panic("Summarize reads newest first")
	}
	var page []rpc.Message
	for i := len(ms) - 1 - offset; i >= 0 && len(page) < limit; i-- {
		page = append(page, ms[i])
	}
	s.reads += len(page)
	return page, len(ms), nil
}

func (s *store) Tail(context.Context, string, string, func(rpc.Message)) (io.Closer, error) {
	return nil, errors.ErrUnsupported
}
func (s *store) Has(context.Context, string, string) bool                  { return true }
func (s *store) Trash(context.Context, string, string, runtimes.Bin) error { return nil }
func (s *store) Watch(string, func(string)) (io.Closer, error)             { return nil, errors.ErrUnsupported }

func answer(id string, at time.Time, in, out int64) rpc.Message {
	return rpc.Message{Type: rpc.MessageAssistant, Timestamp: rpc.FormatTime(at),
		Message: rpc.MessageBody{ID: id, Role: "assistant", Usage: &rpc.Usage{InputTokens: in, OutputTokens: out}}}
}

func prompt(at time.Time) rpc.Message {
	return rpc.Message{Type: rpc.MessageUser, Timestamp: rpc.FormatTime(at), Message: rpc.MessageBody{Role: "user"}}
}

func TestSummarizeByDay(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	day := func(d int, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	long := make([]rpc.Message, 0, 2000)
	for i := range 1000 {
		// A long session: 1000 calls on the 20th (outside the span), then two on the 26th.
		long = append(long, prompt(day(20, 1)), answer("old"+string(rune('a'+i%26))+time.Duration(i).String(), day(20, 1), 1, 1))
	}
	long = append(long, prompt(day(26, 9)), answer("msg_1", day(26, 9), 100, 10),
		// Claude Code writes a message's blocks on lines of their own, each with the call's usage.
		answer("msg_1", day(26, 9), 100, 10), answer("msg_2", day(27, 8), 200, 20))
	claude := &store{sessions: map[string][]rpc.Message{
		"s1":  long,
		"s2":  {prompt(day(27, 9)), answer("", day(27, 9), 5, 1), answer("", day(27, 9), 6, 1)},
		"old": {prompt(day(1, 9)), answer("msg_old", day(1, 9), 1000, 1000)},
	}, updated: map[string]string{"s1": rpc.FormatTime(day(27, 8)), "s2": rpc.FormatTime(day(27, 9)), "old": rpc.FormatTime(day(1, 9))}}

	res, err := Summarize(context.Background(), []Source{{WorkspaceID: "ws_a", Dir: "/a", AgentType: "claude", Transcripts: claude}}, 3, now)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != "2026-11-25" || res.To != "2026-11-27" || res.Cost != rpc.CostUnknown {
		t.Errorf("span %s to %s, cost %q (want unknown: no transcript records one)", res.From, res.To, res.Cost)
	}
	want := []rpc.UsageDay{
		{Date: "2026-11-26", WorkspaceID: "ws_a", AgentType: "claude", TokenTotals: rpc.TokenTotals{InputTokens: 100, OutputTokens: 10, Messages: 1}},
		{Date: "2026-11-27", WorkspaceID: "ws_a", AgentType: "claude", TokenTotals: rpc.TokenTotals{InputTokens: 211, OutputTokens: 22, Messages: 3}},
	}
	if len(res.Days) != len(want) || res.Days[0] != want[0] || res.Days[1] != want[1] {
		t.Errorf("days %+v, want %+v", res.Days, want)
	}
	if res.Total != (rpc.TokenTotals{InputTokens: 311, OutputTokens: 32, Messages: 4}) {
		t.Errorf("total %+v", res.Total)
	}
	// Newest first, stopping at the first day: one page of the long
	// session, nothing of the old one.
	if claude.reads > pageSize+3 {
		t.Errorf("%d messages read for 7 in the span", claude.reads)
	}
}

func TestSummarizeRefusesUnreadableStore(t *testing.T) {
	bad := &store{fail: errors.New("permission denied")}
	_, err := Summarize(context.Background(), []Source{{WorkspaceID: "ws_a", AgentType: "claude", Transcripts: bad}}, 1, time.Now())
	if err == nil {
		t.Fatal("no error from an unreadable store")
	}
}

// counter is a store whose CLI records usage apart from the messages, as
// Codex's rollouts do (runtimes.TokenCounter).
type counter struct {
	*store
	counts map[string][]runtimes.TokenCount
	since  []time.Time // each call's since
}

func (c *counter) TokenCounts(_ context.Context, _, id string, since time.Time) ([]runtimes.TokenCount, error) {
	c.since = append(c.since, since)
	var out []runtimes.TokenCount
	for _, tc := range c.counts[id] {
		if !tc.At.Before(since) {
			out = append(out, tc)
		}
	}
	return out, nil
}

// A runtime whose messages carry no usage (Codex) is summed from its token
// counts, per day, each model call one; its messages are not read.
func TestSummarizeTokenCounter(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	day := func(d int, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	codex := &counter{
		store: &store{sessions: map[string][]rpc.Message{"t1": {prompt(day(26, 9))}, "t2": {prompt(day(27, 9))}},
			updated: map[string]string{"t1": rpc.FormatTime(day(27, 1)), "t2": rpc.FormatTime(day(27, 9))}},
		counts: map[string][]runtimes.TokenCount{
			"t1": {
				{At: day(20, 9), Usage: rpc.Usage{InputTokens: 9999}}, // before the span
				{At: day(26, 9), Usage: rpc.Usage{InputTokens: 500, CacheReadInputTokens: 1000, OutputTokens: 7}},
				{At: day(27, 1), Usage: rpc.Usage{InputTokens: 10, OutputTokens: 1}},
			},
			"t2": {{At: day(27, 9), Usage: rpc.Usage{InputTokens: 20, OutputTokens: 2}}},
		},
	}
	res, err := Summarize(context.Background(), []Source{{WorkspaceID: "ws_a", Dir: "/a", AgentType: "codex", Transcripts: codex}}, 2, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []rpc.UsageDay{
		{Date: "2026-11-26", WorkspaceID: "ws_a", AgentType: "codex", TokenTotals: rpc.TokenTotals{InputTokens: 500, CacheReadInputTokens: 1000, OutputTokens: 7, Messages: 1}},
		{Date: "2026-11-27", WorkspaceID: "ws_a", AgentType: "codex", TokenTotals: rpc.TokenTotals{InputTokens: 30, OutputTokens: 3, Messages: 2}},
	}
	if len(res.Days) != len(want) || res.Days[0] != want[0] || res.Days[1] != want[1] {
		t.Errorf("days %+v, want %+v", res.Days, want)
	}
	if res.Total != (rpc.TokenTotals{InputTokens: 530, CacheReadInputTokens: 1000, OutputTokens: 10, Messages: 3}) {
		t.Errorf("total %+v", res.Total)
	}
	for _, s := range codex.since {
		if !s.Equal(day(26, 0)) {
			t.Errorf("asked for counts since %v, want the span's first day", s)
		}
	}
	if codex.reads != 0 {
		t.Errorf("%d messages read; the counts are enough", codex.reads)
	}
}
