package rollout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

const (
	threadB = "01a205e0-0000-7000-8000-00000000000b"
	threadC = "01a205e0-0000-7000-8000-00000000000c"
)

// setup installs the captured rollout as thread A (workspace ws, older) and
// thread C (workspace ws, newer) and B (workspace other).
func setup(t *testing.T) (home, ws, other string, paths map[string]string) {
	t.Helper()
	home, ws, other = t.TempDir(), t.TempDir(), t.TempDir()
	paths = map[string]string{
		threadA: install(t, home, "exec.jsonl", "2026/11/22", threadA, ws),
		threadB: install(t, home, "exec.jsonl", "2026/11/23", threadB, other),
		threadC: install(t, home, "exec.jsonl", "2026/11/23", threadC, ws),
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(paths[threadA], old, old); err != nil {
		t.Fatal(err)
	}
	return home, ws, other, paths
}

func ids(list []runtimes.Summary) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.SessionID)
	}
	return out
}

// TestListByCwd: List keeps the rollouts whose session_meta cwd is the
// workspace, newest first, also when the workspace is named through a
// symlink; a second call on unchanged files reads nothing.
func TestListByCwd(t *testing.T) {
	home, ws, other, paths := setup(t)
	ctx := context.Background()
	s := newStore(t, home)
	list, err := s.List(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); !slices.Equal(got, []string{threadC, threadA}) {
		t.Fatalf("List(ws) = %v", got)
	}
	if l := list[0]; l.Summary != "run echo please" || l.MessageCount != 7 || l.LastUpdated == "" {
		t.Errorf("summary %+v", l)
	}
	if got, _ := s.List(ctx, other); !slices.Equal(ids(got), []string{threadB}) {
		t.Errorf("List(other) = %v", ids(got))
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.List(ctx, link); !slices.Equal(ids(got), []string{threadC, threadA}) {
		t.Errorf("List(symlink to ws) = %v", ids(got))
	}
	if got, _ := s.List(ctx, t.TempDir()); len(got) != 0 {
		t.Errorf("List(empty workspace) = %v", ids(got))
	}

	scans, bytes := s.Stats().FullScans, s.Stats().ScannedBytes
	if scans != 3 {
		t.Errorf("%d full scans for 3 rollouts", scans)
	}
	if _, err := s.List(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if s.Stats().FullScans != scans || s.Stats().ScannedBytes != bytes {
		t.Errorf("unchanged rollouts read again: %d scans, %d bytes", s.Stats().FullScans-scans, s.Stats().ScannedBytes-bytes)
	}

	// A rollout that grows is read from its old end only.
	more := `{"timestamp":"2026-11-23T02:00:00.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u_more","content":[{"type":"text","text":"more"}]}}}` + "\n"
	appendFile(t, paths[threadA], more)
	list, err = s.List(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); !slices.Equal(got, []string{threadA, threadC}) || list[0].MessageCount != 8 {
		t.Errorf("after growth: %v %+v", got, list)
	}
	if s.Stats().FullScans != scans || s.Stats().ScannedBytes != bytes+int64(len(more)) {
		t.Errorf("growth read %d bytes (%d full scans), want %d", s.Stats().ScannedBytes-bytes, s.Stats().FullScans-scans, len(more))
	}

	// A removed rollout leaves the list (and the cache).
	if err := os.Remove(paths[threadC]); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.List(ctx, ws); !slices.Equal(ids(got), []string{threadA}) {
		t.Errorf("after removal: %v", ids(got))
	}
}

func TestListNoSessions(t *testing.T) {
	list, err := newStore(t, t.TempDir()).List(context.Background(), t.TempDir())
	if err != nil || list == nil || len(list) != 0 {
		t.Errorf("List = %v, %v; want empty, not nil", list, err)
	}
}

func TestLocate(t *testing.T) {
	home, _, _, paths := setup(t)
	s := newStore(t, home)
	for id, want := range paths {
		if p, ok := s.Locate(id); !ok || p != want {
			t.Errorf("Locate(%s) = %s, %v", id, p, ok)
		}
	}
	walks := s.Stats().Walks
	if _, ok := s.Locate(threadB); !ok || s.Stats().Walks != walks {
		t.Errorf("a known thread cost a walk")
	}
	for _, id := range []string{"01a205e0-0000-7000-8000-0000000000ff", "../x", ""} {
		if _, ok := s.Locate(id); ok {
			t.Errorf("Locate(%q) found something", id)
		}
	}
}

// TestLocateByIDTime: a rollout filed under the date its UUIDv7 id holds
// (as Codex files them) is found without a walk of every date directory;
// one filed elsewhere, or whose id is no UUIDv7, is found by the walk.
func TestLocateByIDTime(t *testing.T) {
	home, ws, _, paths := setup(t)
	day := time.UnixMilli(0x01a205e00000).Format("2006/01/02") // threadB's creation, local time
	moved := filepath.Join(home, "sessions", filepath.FromSlash(day), filepath.Base(paths[threadB]))
	if err := os.MkdirAll(filepath.Dir(moved), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(paths[threadB], moved); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, home)
	if p, ok := s.Locate(threadB); !ok || p != moved || s.Stats().Walks != 0 {
		t.Errorf("Locate = %s, %v after %d walks; want %s without one", p, ok, s.Stats().Walks, moved)
	}
	far := install(t, home, "exec.jsonl", "2025/01/01", "01a205e0-0000-7000-8000-0000000000fa", ws)
	notV7 := install(t, home, "exec.jsonl", day, "01a205e0-0000-4000-8000-0000000000fb", ws)
	for id, want := range map[string]string{"01a205e0-0000-7000-8000-0000000000fa": far, "01a205e0-0000-4000-8000-0000000000fb": notV7} {
		s := newStore(t, home)
		if p, ok := s.Locate(id); !ok || p != want || s.Stats().Walks != 1 {
			t.Errorf("Locate(%s) = %s, %v after %d walks; want %s after one", id, p, ok, s.Stats().Walks, want)
		}
	}
}

// TestMessagesPaging pages through the captured rollout both ways; ids are
// the same on every read, and a thread of another workspace is not found.
func TestMessagesPaging(t *testing.T) {
	home, ws, other, _ := setup(t)
	ctx := context.Background()
	s := newStore(t, home)
	all, total, err := s.Messages(ctx, ws, threadA, 0, 100, false)
	if err != nil || total != 7 || len(all) != 7 {
		t.Fatalf("Messages: %d of %d, %v", len(all), total, err)
	}
	var allIDs []string
	for _, m := range all {
		allIDs = append(allIDs, m.ID)
	}
	for _, limit := range []int{1, 3, 5} {
		for _, desc := range []bool{false, true} {
			var got []string
			for off := 0; off < total; off += limit {
				page, n, err := s.Messages(ctx, ws, threadA, off, limit, desc)
				if err != nil || n != total {
					t.Fatalf("page %d+%d: %d, %v", off, limit, n, err)
				}
				for _, m := range page {
					got = append(got, m.ID)
				}
			}
			want := slices.Clone(allIDs)
			if desc {
				slices.Reverse(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("limit %d desc %v: %v, want %v", limit, desc, got, want)
			}
		}
	}
	if page, n, err := s.Messages(ctx, ws, threadA, 50, 10, true); err != nil || n != 7 || len(page) != 0 {
		t.Errorf("page past the end: %d, %d, %v", len(page), n, err)
	}
	if _, _, err := s.Messages(ctx, other, threadA, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("thread of another workspace: %v", err)
	}
	if _, _, err := s.Messages(ctx, ws, "01a205e0-0000-7000-8000-0000000000ff", 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("unknown thread: %v", err)
	}
	if _, _, err := s.Messages(ctx, ws, "../../etc", 0, 10, false); !errors.Is(err, runtimes.ErrBadSessionID) {
		t.Errorf("bad id: %v", err)
	}
	if _, _, err := s.Messages(ctx, ws, threadA, -1, 10, false); err == nil {
		t.Errorf("negative offset accepted")
	}
}

// TestMalformedLinesSkipped: garbage, torn and overlong lines between the
// real ones change nothing; a torn last line is not a message until its
// newline arrives.
func TestMalformedLinesSkipped(t *testing.T) {
	home, ws, _, paths := setup(t)
	ctx := context.Background()
	s := newStore(t, home)
	_, before, err := s.Messages(ctx, ws, threadA, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, paths[threadA], "garbage\n{\"type\":\n\x00\xff\n{}\n[]\nnull\n"+
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u_torn","content":[{"type":"text","text":"to`)
	page, total, err := s.Messages(ctx, ws, threadA, 0, 1, true)
	if err != nil || total != before {
		t.Fatalf("with garbage: %d messages, %v; want %d", total, err, before)
	}
	appendFile(t, paths[threadA], "rn\"}]}}}\n")
	page, total, err = s.Messages(ctx, ws, threadA, 0, 1, true)
	if err != nil || total != before+1 || page[0].ID != "u_torn" || page[0].Message.Content[0].Text != "torn" {
		t.Fatalf("after the torn line ended: %d, %+v, %v", total, page, err)
	}
}

func TestMessagesManyThreads(t *testing.T) {
	// Locate sees threads created after the first walk.
	home, ws, _, _ := setup(t)
	s := newStore(t, home)
	if _, err := s.List(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("01a205e0-0000-7000-8000-%012d", 42)
	install(t, home, "exec.jsonl", "2026/11/24", id, ws)
	if _, n, err := s.Messages(context.Background(), ws, id, 0, 1, false); err != nil || n != 7 {
		t.Errorf("new thread: %d, %v", n, err)
	}
}

// TestMessagesMalformedMessageLine: a line whose top level says message but
// that is not valid JSON inside (the index counts it without decoding it)
// is left out of its page; neither that page nor the next read fails.
func TestMessagesMalformedMessageLine(t *testing.T) {
	home, ws, _, paths := setup(t)
	ctx := context.Background()
	s := newStore(t, home)
	_, before, err := s.Messages(ctx, ws, threadA, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, paths[threadA], `{"type":"response_item","payload":{"type":"reasoning","summary":[{"text":nope}]}}`+"\n")
	for range 2 {
		page, total, err := s.Messages(ctx, ws, threadA, 0, 3, true)
		if err != nil || total != before+1 || len(page) != 2 {
			t.Fatalf("%d of %d, %v; want 2 of %d", len(page), total, err, before+1)
		}
	}
}
