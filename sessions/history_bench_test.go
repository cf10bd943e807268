package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// BenchmarkHistory: a history call (first page, encoded as the reply is)
// of a workspace of 1,000 stored sessions.
func BenchmarkHistory(b *testing.B) {
	base := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	var list []runtimes.Summary
	for i := range 1000 {
		list = append(list, runtimes.Summary{SessionID: fmt.Sprintf("%08d-0000-4000-8000-000000000000", i),
			Summary: fmt.Sprintf("session %d: refactor the parser", i), MessageCount: 20 + i%10,
			LastUpdated: base.Add(-time.Duration(i) * time.Minute).Format(historyTime), Branch: "main"})
	}
	a := &fixedList{transcriptMem: &transcriptMem{memAdapter: newMem(), dir: b.TempDir()}, list: list}
	reg, err := registry.New(a)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	store, err := workspaces.Open(filepath.Join(dir, "ws.json"))
	if err != nil {
		b.Fatal(err)
	}
	ws, err := store.Add(dir, "", false)
	if err != nil {
		b.Fatal(err)
	}
	e := New(Config{Registry: reg, Workspaces: store, TrashDir: filepath.Join(dir, "trash"), IdleTimeout: -1})
	defer e.Close(context.Background())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.History(ctx, rpc.HistoryParams{WorkspaceID: ws.ID})
		if err != nil || res.Total != 1000 {
			b.Fatal(res.Total, err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}
