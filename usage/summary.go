package usage

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Source is one runtime's stored sessions in one workspace.
type Source struct {
	WorkspaceID string
	Dir         string
	AgentType   string
	Transcripts runtimes.Transcripts
}

// pageSize is how many messages one read of a transcript takes.
const pageSize = 500

// Summarize sums the tokens of the assistant messages stored in sources
// over the days days ending today (UTC, now's date), by date, workspace and
// runtime. It reads only what the transcript readers expose (List and
// Messages), newest first, so a session last written before the first day
// costs no read at all and a long one is read only back to that day.
func Summarize(ctx context.Context, sources []Source, days int, now time.Time) (rpc.UsageSummaryResult, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(days - 1))
	// No transcript records a cost (rpc.CostUnknown): saying so beats a
	// zero that reads as free.
	res := rpc.UsageSummaryResult{From: from.Format(time.DateOnly), To: today.Format(time.DateOnly), Days: []rpc.UsageDay{},
		Cost: rpc.CostUnknown}
	byKey := map[[3]string]*rpc.UsageDay{}
	for _, src := range sources {
		if err := sumSource(ctx, src, from, byKey); err != nil {
			return rpc.UsageSummaryResult{}, err
		}
	}
	for _, d := range byKey {
		res.Days = append(res.Days, *d)
		add(&res.Total, d.TokenTotals)
	}
	sort.Slice(res.Days, func(i, j int) bool {
		a, b := res.Days[i], res.Days[j]
		if a.Date != b.Date {
			return a.Date < b.Date
		}
		if a.WorkspaceID != b.WorkspaceID {
			return a.WorkspaceID < b.WorkspaceID
		}
		return a.AgentType < b.AgentType
	})
	return res, nil
}

func sumSource(ctx context.Context, src Source, from time.Time, byKey map[[3]string]*rpc.UsageDay) error {
	list, err := src.Transcripts.List(ctx, src.Dir)
	if err != nil {
		return fmt.Errorf("%s sessions of %s: %w", src.AgentType, src.WorkspaceID, err)
	}
	for _, s := range list {
		if t, err := time.Parse(time.RFC3339, s.LastUpdated); err == nil && t.Before(from) {
			continue
		}
		if tc, ok := src.Transcripts.(runtimes.TokenCounter); ok {
			err = sumCounts(ctx, src, tc, s.SessionID, from, byKey)
		} else {
			err = sumSession(ctx, src, s.SessionID, from, byKey)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sumSession adds one session's messages since from. A message the CLI
// wrote in several lines (Claude Code: one per content block, each with
// the call's usage) is counted once, by its model API id.
func sumSession(ctx context.Context, src Source, id string, from time.Time, byKey map[[3]string]*rpc.UsageDay) error {
	seen := map[string]bool{}
	for offset := 0; ; offset += pageSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		page, total, err := src.Transcripts.Messages(ctx, src.Dir, id, offset, pageSize, true)
		if err != nil {
			return fmt.Errorf("%s session %s: %w", src.AgentType, id, err)
		}
		older := false
		for _, m := range page {
			at, err := time.Parse(time.RFC3339Nano, m.Timestamp)
			if err != nil {
				continue
			}
			if at.Before(from) {
				older = true // newest first: the rest is older still
				break
			}
			u := m.Message.Usage
			if u == nil || m.Message.Role != "assistant" {
				continue
			}
			if key := m.Message.ID; key != "" {
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			count(byKey, src, at, *u)
		}
		if older || len(page) == 0 || offset+len(page) >= total {
			return nil
		}
	}
}

// sumCounts adds one session's model calls since from, as a reader that
// keeps them apart from the messages gives them (runtimes.TokenCounter).
func sumCounts(ctx context.Context, src Source, tc runtimes.TokenCounter, id string, from time.Time, byKey map[[3]string]*rpc.UsageDay) error {
	counts, err := tc.TokenCounts(ctx, src.Dir, id, from)
	if err != nil {
		return fmt.Errorf("%s session %s: %w", src.AgentType, id, err)
	}
	for _, c := range counts {
		count(byKey, src, c.At, c.Usage)
	}
	return nil
}

// count adds one model call's usage at at to its day's totals.
func count(byKey map[[3]string]*rpc.UsageDay, src Source, at time.Time, u rpc.Usage) {
	date := at.UTC().Format(time.DateOnly)
	k := [3]string{date, src.WorkspaceID, src.AgentType}
	d := byKey[k]
	if d == nil {
		d = &rpc.UsageDay{Date: date, WorkspaceID: src.WorkspaceID, AgentType: src.AgentType}
		byKey[k] = d
	}
	add(&d.TokenTotals, rpc.TokenTotals{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens,
		Messages: 1})
}

func add(t *rpc.TokenTotals, u rpc.TokenTotals) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheCreationInputTokens += u.CacheCreationInputTokens
	t.CacheReadInputTokens += u.CacheReadInputTokens
	t.Messages += u.Messages
}
