package chats

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// writeBig writes a chat file of about size bytes for workspace ws, shaped
// like Gemini's: header, $set of the context, then turns (prompt, an
// answer record written twice as it grows, a tool-call record, the
// function response, $set lastUpdated).
func writeBig(b testing.TB, home, ws, id string, size int64) string {
	b.Helper()
	dir := filepath.Join(home, "tmp", "big", "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "session-2026-11-23T00-00-"+id8(id)+".jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := fmt.Fprintf(w, `{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T00:00:00.000Z","lastUpdated":"2026-11-23T00:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"ctx","timestamp":"2026-11-23T00:00:00.000Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI."}]}]}}
`, id, ProjectHash(ws))
	written := int64(n)
	pad := strings.Repeat("x", 2000)
	for i := 0; written < size; i++ {
		n, _ = fmt.Fprintf(w, `{"id":"u%d","timestamp":"2026-11-23T00:00:01.000Z","type":"user","content":[{"text":"prompt %d"}]}
{"id":"g%d","timestamp":"2026-11-23T00:00:02.000Z","type":"gemini","content":"","toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":"ls"},"status":"executing"}],"model":"gemini-2.5-flash"}
{"id":"g%d","timestamp":"2026-11-23T00:00:02.000Z","type":"gemini","content":"","toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":"%s"}}}],"status":"success"}],"model":"gemini-2.5-flash"}
{"id":"r%d","timestamp":"2026-11-23T00:00:03.000Z","type":"user","content":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":"%s"}}}]}
{"id":"a%d","timestamp":"2026-11-23T00:00:04.000Z","type":"gemini","content":"answer %d","thoughts":[{"subject":"S","description":"thinking %d"}],"tokens":{"input":10,"output":5,"cached":0},"model":"gemini-2.5-flash"}
{"$set":{"lastUpdated":"2026-11-23T00:00:04.000Z"}}
`, i, i, i, i, i, i, i, pad, i, i, pad, i, i, i)
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

// BenchmarkMessagesLastPage reads the newest page of 50 of a big chat file
// through a warm Store: the cost of one messages request once the file is
// replayed. The first (cold) read, which replays the whole file, is
// reported as cold-ms; appending one record and reading again as grow-ms;
// the heap the Store keeps for the file as cached-MB.
func BenchmarkMessagesLastPage(b *testing.B) {
	for _, size := range []int64{1 << 20, 50 << 20, 100 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			home, ws := b.TempDir(), b.TempDir()
			const id = "0b000000-0000-4000-8000-000000000001"
			p := writeBig(b, home, ws, id, size)
			s := New(home, nil)
			ctx := context.Background()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			if _, _, err := s.Messages(ctx, ws, id, 0, 50, true); err != nil {
				b.Fatal(err)
			}
			cold := time.Since(start)
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / (1 << 20)
			appendFile(b, p, `{"id":"late","timestamp":"2026-11-23T01:00:00.000Z","type":"user","content":[{"text":"late"}]}`+"\n")
			start = time.Now()
			page, _, err := s.Messages(ctx, ws, id, 0, 50, true)
			if err != nil || page[0].ID != "late" {
				b.Fatalf("after append: %v %v", err, ids(page))
			}
			grow := time.Since(start)
			for b.Loop() {
				page, _, err := s.Messages(ctx, ws, id, 0, 50, true)
				if err != nil || len(page) != 50 {
					b.Fatalf("%v, %d messages", err, len(page))
				}
			}
			// After the loop: the timer's reset drops metrics reported before.
			b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
			b.ReportMetric(float64(grow.Microseconds())/1000, "grow-ms")
			b.ReportMetric(heap, "cached-MB") // what the Store keeps of the file
			runtime.KeepAlive(s)
		})
	}
}

// BenchmarkList1000 lists a workspace of 1,000 sessions (and as many
// phantoms) through a warm Store; the first (cold) List is cold-ms.
func BenchmarkList1000(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	writeSessions(b, home, ws, 1000)
	s := New(home, nil)
	defer s.Close()
	ctx := context.Background()
	start := time.Now()
	got, err := s.List(ctx, ws)
	if err != nil || len(got) != 1000 {
		b.Fatalf("%v, %d sessions", err, len(got))
	}
	cold := time.Since(start)
	for b.Loop() {
		if got, err := s.List(ctx, ws); err != nil || len(got) != 1000 {
			b.Fatalf("%v, %d sessions", err, len(got))
		}
	}
	b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
}

// BenchmarkFirstPage reads the newest page of 50 of a 100 MB chat file
// never read by the Store (a new one each time; the file in the page
// cache): cold is a replay of the whole file, restart a Store whose cache
// directory holds the index a previous one saved.
func BenchmarkFirstPage(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	writeBig(b, home, ws, id, 100<<20)
	ctx := context.Background()
	page := func(s *Store) {
		if p, _, err := s.Messages(ctx, ws, id, 0, 50, true); err != nil || len(p) != 50 {
			b.Fatalf("%v, %d messages", err, len(p))
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			page(New(home, nil))
		}
	})
	b.Run("restart", func(b *testing.B) {
		cache := b.TempDir()
		s := New(home, nil).WithCacheDir(cache)
		page(s) // saves the index
		s.Close()
		for b.Loop() {
			page(New(home, nil).WithCacheDir(cache))
		}
	})
}

// BenchmarkListCold lists a workspace of 1,000 sessions (and as many
// phantoms) with a new Store each time.
func BenchmarkListCold(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	writeSessions(b, home, ws, 1000)
	ctx := context.Background()
	for b.Loop() {
		s := New(home, nil)
		got, err := s.List(ctx, ws)
		s.Close()
		if err != nil || len(got) != 1000 {
			b.Fatalf("%v, %d sessions", err, len(got))
		}
	}
}

// writeSessions writes n sessions of workspace ws, each with a phantom, in
// the chats directory Gemini uses for ws.
func writeSessions(b *testing.B, home, ws string, n int) {
	dir := filepath.Join(home, "tmp", filepath.Base(ws), "chats") // where Gemini puts them
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		phantom := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i+1<<20)
		body := fmt.Sprintf(`{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T00:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"ctx","timestamp":"2026-11-23T00:00:00.000Z","type":"user","content":[{"text":"<session_context>\nx"}]}]}}
{"id":"u","timestamp":"2026-11-23T00:00:01.000Z","type":"user","content":[{"text":"prompt %d"}]}
{"id":"a","timestamp":"2026-11-23T00:00:02.000Z","type":"gemini","content":"answer"}
`, id, ProjectHash(ws), i)
		if err := os.WriteFile(filepath.Join(dir, "session-2026-11-23T00-00-"+id8(id)+".jsonl"), []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
		ph := fmt.Sprintf(`{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T00:00:00.000Z","kind":"main"}`+"\n", phantom, ProjectHash(ws))
		if err := os.WriteFile(filepath.Join(dir, "session-2026-11-23T00-01-"+id8(phantom)+".jsonl"), []byte(ph), 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListColdBesideBig is BenchmarkListCold in a Gemini home that
// also holds another project's 100 MB chat file, which a List of the
// workspace need not replay.
func BenchmarkListColdBesideBig(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	writeSessions(b, home, ws, 1000)
	writeBig(b, home, b.TempDir(), "0b000000-0000-4000-8000-000000000001", 100<<20)
	ctx := context.Background()
	for b.Loop() {
		s := New(home, nil)
		got, err := s.List(ctx, ws)
		s.Close()
		if err != nil || len(got) != 1000 {
			b.Fatalf("%v, %d sessions", err, len(got))
		}
	}
}

// BenchmarkFirstPageBench is BenchmarkFirstPage/cold on the chat file
// `cdevd bench` measures (testdoubles/geminigen, ~1 KB pads: more,
// smaller records than writeBig's), without and with a cache directory
// (the daemon has one, so the first read also persists the replay). Each
// reports the CPU time a page took, and the collector's share of it.
func BenchmarkFirstPageBench(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	g := geminigen.New(id, ws)
	g.Pad = strings.Repeat(" lorem ipsum", 85) // claudegen.LoremPad
	if err := g.Write(g.Path(home), 100<<20, 0); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	page := func(s *Store) {
		if p, _, err := s.Messages(ctx, ws, id, 0, 50, true); err != nil || len(p) != 50 {
			b.Fatalf("%v, %d messages", err, len(p))
		}
	}
	b.Run("cold", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			page(New(home, nil))
		}
	})
	b.Run("cold-persist", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			s := New(home, nil).WithCacheDir(b.TempDir())
			page(s)
			s.Close() // waits for the index's save, which runs apart from the reply
		}
	})
	b.Run("restart", func(b *testing.B) {
		cache := b.TempDir()
		s := New(home, nil).WithCacheDir(cache)
		page(s) // saves the index
		s.Close()
		defer reportCPU(b)()
		for b.Loop() {
			page(New(home, nil).WithCacheDir(cache))
		}
	})
}
