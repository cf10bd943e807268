package sessions

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// fixedList is a runtime whose transcripts List returns a fixed listing,
// as a watched, unchanged folder does: what History adds to it is what
// BenchmarkHistory measures.
type fixedList struct {
	*transcriptMem
	list []runtimes.Summary
}

func (a *fixedList) Transcripts() runtimes.Transcripts {
	return fixedTranscripts{a.transcriptMem.Transcripts().(memTranscripts), a.list}
}

type fixedTranscripts struct {
	memTranscripts
	list []runtimes.Summary
}

// List shares its listing, as Claude's store does for an unchanged folder.
func (f fixedTranscripts) List(context.Context, string) ([]runtimes.Summary, error) {
	return slices.Clip(f.list), nil
}

// TestHistoryPages: pages of a history hold, in order, the running
// sessions with nothing stored (newest first), then the stored ones newest
// first, a running one among them with its live status; every session
// once, across pages, and the total counts them all.
func TestHistoryPages(t *testing.T) {
	a := &fixedList{transcriptMem: &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}}
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	storedLive, _ := start(t, e, a.memAdapter, w, wsID)
	fresh, _ := start(t, e, a.memAdapter, w, wsID)
	base := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	at := func(h int) string { return base.Add(time.Duration(h) * time.Hour).Format(historyTime) }
	// Out of order, as two folders' listings appended are.
	a.list = []runtimes.Summary{
		{SessionID: "s2", LastUpdated: at(2)},
		{SessionID: "s0", LastUpdated: at(9)},
		{SessionID: storedLive, LastUpdated: at(3), Summary: "stored"},
		{SessionID: "s4", LastUpdated: at(0)},
		{SessionID: "s1", LastUpdated: at(5)},
		{SessionID: "s3", LastUpdated: at(1)},
	}
	want := []string{fresh, "s0", "s1", storedLive, "s2", "s3", "s4"}
	var got []string
	cursor := ""
	for range len(want) {
		res, err := e.History(context.Background(), rpc.HistoryParams{WorkspaceID: wsID, Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != len(want) {
			t.Fatalf("total %d, want %d", res.Total, len(want))
		}
		for _, h := range res.Sessions {
			got = append(got, h.SessionID)
			live := h.SessionID == fresh || h.SessionID == storedLive
			if live == (h.Status == rpc.StatusHistorical) {
				t.Errorf("%s: status %s", h.SessionID, h.Status)
			}
			if h.SessionID == storedLive && h.Summary != "stored" {
				t.Errorf("the running stored session's entry %+v lost what was stored", h)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	res, err := e.History(context.Background(), rpc.HistoryParams{WorkspaceID: wsID, Cursor: "7"})
	if err != nil || len(res.Sessions) != 0 || res.NextCursor != "" || res.Total != 7 {
		t.Fatalf("past the end: %+v, %v", res, err)
	}
}
