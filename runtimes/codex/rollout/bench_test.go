package rollout

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// writeBig writes a rollout of about size bytes for workspace ws: the
// captured rollout's session_meta, then turns shaped like Codex's (prompt,
// reasoning, call, output, answer, with the lines that are not messages).
func writeBig(b testing.TB, home, ws, id string, size int64) string {
	b.Helper()
	dir := filepath.Join(home, "sessions", "2026", "11", "23")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "rollout-2026-11-23T00-00-00-"+id+".jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := fmt.Fprintf(w, `{"timestamp":"2026-11-23T00:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":%q,"cli_version":"0.169.0"}}`+"\n", id, ws)
	written := int64(n)
	pad := make([]byte, 2000)
	for i := range pad {
		pad[i] = 'x'
	}
	for i := 0; written < size; i++ {
		n, _ = fmt.Fprintf(w, `{"timestamp":"2026-11-23T00:00:01.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u_%d","content":[{"type":"text","text":"prompt %d"}]}}}
{"timestamp":"2026-11-23T00:00:02.000Z","type":"response_item","payload":{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"thinking %d"}]}}
{"timestamp":"2026-11-23T00:00:03.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_%d","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_%d"}}
{"timestamp":"2026-11-23T00:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","id":"fco_%d","call_id":"call_%d","output":"%s"}}
{"timestamp":"2026-11-23T00:00:05.000Z","type":"event_msg","payload":{"type":"token_count","info":{}}}
{"timestamp":"2026-11-23T00:00:06.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"msg_%d","content":[{"type":"Text","text":"answer %d"}]}}}
{"timestamp":"2026-11-23T00:00:06.000Z","type":"response_item","payload":{"type":"message","id":"msg_%d","role":"assistant","content":[{"type":"output_text","text":"answer %d"}]}}
`, i, i, i, i, i, i, i, i, pad, i, i, i, i)
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkMessagesLastPage reads the newest page of 50 of a big rollout
// through a warm Store: the cost of one messages request once the index is
// built. The first (cold) read, which builds the index, is reported as
// cold-ms.
func BenchmarkMessagesLastPage(b *testing.B) {
	for _, size := range []int64{1 << 20, 100 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			home, ws := b.TempDir(), b.TempDir()
			writeBig(b, home, ws, threadA, size)
			s := newStore(b, home)
			ctx := context.Background()
			start := time.Now().UnixNano()
			if _, _, err := s.Messages(ctx, ws, threadA, 0, 50, true); err != nil {
				b.Fatal(err)
			}
			cold := float64(time.Now().UnixNano()-start) / 1e6
			b.ResetTimer()
			cpu := cpuMeter(b)
			for b.Loop() {
				page, total, err := s.Messages(ctx, ws, threadA, 0, 50, true)
				if err != nil || len(page) != 50 || total == 0 {
					b.Fatalf("%d of %d, %v", len(page), total, err)
				}
			}
			cpu()
			b.ReportMetric(cold, "cold-ms") // after the loop: ResetTimer drops metrics
		})
	}
}

// BenchmarkList1000 lists a workspace among 1,000 rollouts (half of them
// its own) through a warm Store: with the sessions tree watched, one
// barrier round and no read while nothing changed; refused (the fallback),
// one walk and a stat per rollout. cold-ms is the first call, which
// indexes the workspace's rollouts and reads the first line of the others.
func BenchmarkList1000(b *testing.B) {
	home, ws, other := b.TempDir(), b.TempDir(), b.TempDir()
	for i := range 1000 {
		dir := ws
		if i%2 == 1 {
			dir = other
		}
		writeBig(b, home, dir, fmt.Sprintf("01a205e0-0000-7000-8000-%012d", i), 8<<10)
	}
	for _, c := range []struct {
		name string
		w    *fswatch.Watcher
	}{
		{"watched", nil},
		{"refused", fswatch.New(fswatch.Config{Refuse: func(string) error { return syscall.ENOSPC }})},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := newStore(b, home).WithWatcher(c.w)
			ctx := context.Background()
			start := time.Now().UnixNano()
			if list, err := s.List(ctx, ws); err != nil || len(list) != 500 {
				b.Fatalf("%d, %v", len(list), err)
			}
			cold := float64(time.Now().UnixNano()-start) / 1e6
			b.ResetTimer()
			cpu := cpuMeter(b)
			for b.Loop() {
				if list, err := s.List(ctx, ws); err != nil || len(list) != 500 {
					b.Fatalf("%d, %v", len(list), err)
				}
			}
			cpu()
			b.ReportMetric(cold, "cold-ms")
		})
	}
}

// cpuMeter reports, when the returned function is called after a b.Loop,
// the CPU time the process used per iteration since cpuMeter was called, as
// cpu-ms/op: on a machine shared with other work, wall time measures the
// neighbours too.
func cpuMeter(b *testing.B) func() {
	start := cpuNow()
	return func() { b.ReportMetric(float64(cpuNow()-start)/1e6/float64(b.N), "cpu-ms/op") }
}

// bigSizes are the rollouts the first-page benchmarks read.
var bigSizes = []int64{1 << 20, 100 << 20}

// bigRollouts writes one rollout of each of bigSizes, thread i of each
// under its own id, among 200 small rollouts spread over 100 date
// directories (a home with history, which a lookup by id must not walk);
// it returns the home, the workspace and the ids.
func bigRollouts(b *testing.B) (home, ws string, ids []string) {
	home, ws = b.TempDir(), b.TempDir()
	for i, size := range bigSizes {
		id := fmt.Sprintf("01a205e0-0000-7000-8000-%012d", 9000+i)
		writeBig(b, home, ws, id, size)
		ids = append(ids, id)
	}
	other := b.TempDir()
	for i := range 200 {
		p := writeBig(b, home, other, fmt.Sprintf("01a205e0-0000-7000-8000-%012d", i), 4<<10)
		day := filepath.Join(home, "sessions", "2025", fmt.Sprintf("%02d", 1+i%10), fmt.Sprintf("%02d", 1+i/10%10))
		if err := os.MkdirAll(day, 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(p, filepath.Join(day, filepath.Base(p))); err != nil {
			b.Fatal(err)
		}
	}
	return home, ws, ids
}

// BenchmarkFirstPage is the first page of 50 of a never-read rollout: a new
// Store (no cache directory) finds the rollout by its id, indexes it and
// reads the page. The file is in the page cache, as one the CLI just wrote.
func BenchmarkFirstPage(b *testing.B) {
	home, ws, ids := bigRollouts(b)
	for i, size := range bigSizes {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			cpu := cpuMeter(b)
			for b.Loop() {
				s := newStore(b, home)
				if page, _, err := s.Messages(context.Background(), ws, ids[i], 0, 50, true); err != nil || len(page) != 50 {
					b.Fatalf("%d, %v", len(page), err)
				}
			}
			cpu()
		})
	}
}

// BenchmarkRestartPage is the first page of a rollout after a daemon
// restart: a new Store whose cache directory holds what the previous one
// persisted.
func BenchmarkRestartPage(b *testing.B) {
	home, ws, ids := bigRollouts(b)
	cache := b.TempDir()
	for i, size := range bigSizes {
		s := newStore(b, home).WithCacheDir(cache)
		if _, _, err := s.Messages(context.Background(), ws, ids[i], 0, 50, true); err != nil {
			b.Fatal(err)
		}
		s.Close() // the index saved
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			cpu := cpuMeter(b)
			for b.Loop() {
				s := newStore(b, home).WithCacheDir(cache)
				if page, _, err := s.Messages(context.Background(), ws, ids[i], 0, 50, true); err != nil || len(page) != 50 {
					b.Fatalf("%d, %v", len(page), err)
				}
			}
			cpu()
		})
	}
}

// BenchmarkListCold lists a workspace among 1,000 rollouts (half of them its
// own, 10-30 lines each) with a new Store each time: the first call, and
// (with a cache directory filled by an earlier Store) the first call after
// a restart.
func BenchmarkListCold(b *testing.B) {
	home, ws, other := b.TempDir(), b.TempDir(), b.TempDir()
	for i := range 1000 {
		dir := ws
		if i%2 == 1 {
			dir = other
		}
		writeBig(b, home, dir, fmt.Sprintf("01a205e0-0000-7000-8000-%012d", i), int64(4<<10+i%3*4<<10))
	}
	list := func(b *testing.B, s *Store) {
		if list, err := s.List(context.Background(), ws); err != nil || len(list) != 500 {
			b.Fatalf("%d, %v", len(list), err)
		}
	}
	b.Run("first", func(b *testing.B) {
		cpu := cpuMeter(b)
		for b.Loop() {
			s := New(home, nil)
			list(b, s)
			s.Close()
		}
		cpu()
	})
	cache := b.TempDir()
	primed := newStore(b, home).WithCacheDir(cache)
	list(b, primed)
	primed.Close() // the indexes saved
	b.Run("restart", func(b *testing.B) {
		cpu := cpuMeter(b)
		for b.Loop() {
			s := New(home, nil).WithCacheDir(cache)
			list(b, s)
			s.Close()
		}
		cpu()
	})
}

// BenchmarkClassify indexes the lines of 10 MB of rollout held in memory:
// the CPU cost of a first index build without its reads.
func BenchmarkClassify(b *testing.B) {
	benchAdd(b, writeBig(b, b.TempDir(), "/w", threadA, 10<<20))
}

// BenchmarkListBesideBig is the first List (a new Store) of a workspace of
// 100 small rollouts in a tree that also holds a 64 MB rollout of another
// workspace: List reads that one's first line, where it used to scan it.
func BenchmarkListBesideBig(b *testing.B) {
	home, ws, other := b.TempDir(), b.TempDir(), b.TempDir()
	for i := range 100 {
		writeBig(b, home, ws, fmt.Sprintf("01a205e0-0000-7000-8000-%012d", i), 8<<10)
	}
	writeBig(b, home, other, threadB, 64<<20)
	cpu := cpuMeter(b)
	for b.Loop() {
		s := New(home, nil)
		if list, err := s.List(context.Background(), ws); err != nil || len(list) != 100 {
			b.Fatalf("%d, %v", len(list), err)
		}
		s.Close()
	}
	cpu()
}
