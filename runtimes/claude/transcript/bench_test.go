package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// writeTranscript writes a generated transcript of about size bytes to
// path, with assistant texts and tool results of about 1 KB, and returns
// the number of messages in it.
func writeTranscript(b testing.TB, path, sid string, size int64) int {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	g := newGen(sid)
	g.pad = strings.Repeat(" lorem ipsum", 80)
	for n := int64(0); n < size; {
		k, _ := w.WriteString(g.lines(1))
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return g.n
}

var transcriptSizes = []struct {
	name string
	size int64
}{{"1MB", 1 << 20}, {"10MB", 10 << 20}, {"100MB", 100 << 20}}

// transcripts writes one session per size into a new projects folder and
// returns it with the session ids.
func transcripts(b *testing.B) (string, []string) {
	projects := b.TempDir()
	d := New(projects, nil).Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		b.Fatal(err)
	}
	var ids []string
	for i, c := range transcriptSizes {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		writeTranscript(b, filepath.Join(d, id+".jsonl"), id, c.size)
		ids = append(ids, id)
	}
	return projects, ids
}

// BenchmarkMessagesPage reads the newest 50 messages of a transcript whose
// index is already built: the cost of every page after the first.
func BenchmarkMessagesPage(b *testing.B) {
	projects, ids := transcripts(b)
	for i, c := range transcriptSizes {
		b.Run(c.name, func(b *testing.B) {
			s := New(projects, nil)
			ctx := context.Background()
			if _, _, err := s.Messages(ctx, workDir, ids[i], 0, 50, true); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				page, _, err := s.Messages(ctx, workDir, ids[i], 0, 50, true)
				if err != nil || len(page) != 50 {
					b.Fatalf("%d messages, %v", len(page), err)
				}
			}
		})
	}
}

// BenchmarkIndexBuild is the one-time cost of the first page of a
// transcript: scanning the whole file to index its message lines.
func BenchmarkIndexBuild(b *testing.B) {
	projects, ids := transcripts(b)
	for i, c := range transcriptSizes {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(c.size)
			for b.Loop() {
				if _, _, err := New(projects, nil).Messages(context.Background(), workDir, ids[i], 0, 50, true); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The same with the index persisted, as cdevd does: the save runs
		// apart from the reply, and Close waits for it (the work it adds).
		b.Run(c.name+"-persisting", func(b *testing.B) {
			b.SetBytes(c.size)
			for b.Loop() {
				s := New(projects, nil).WithCacheDir(filepath.Join(b.TempDir(), "cache"))
				if _, _, err := s.Messages(context.Background(), workDir, ids[i], 0, 50, true); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkReadOnce reads each transcript once in read-sized chunks, doing
// nothing with the bytes: the floor a first index build is measured against.
func BenchmarkReadOnce(b *testing.B) {
	projects, ids := transcripts(b)
	buf := make([]byte, jsonl.ChunkSize)
	for i, c := range transcriptSizes {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(c.size)
			for b.Loop() {
				f, err := os.Open(filepath.Join(New(projects, nil).Dir(workDir), ids[i]+".jsonl"))
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := f.Read(buf); err != nil {
						break
					}
				}
				f.Close()
			}
		})
	}
}

// BenchmarkRestartPage is the first page of a transcript after a daemon
// restart: a new Store whose cache directory holds the index the previous
// one persisted.
func BenchmarkRestartPage(b *testing.B) {
	projects, ids := transcripts(b)
	cache := b.TempDir()
	for i, c := range transcriptSizes {
		s := New(projects, nil).WithCacheDir(cache)
		if _, _, err := s.Messages(context.Background(), workDir, ids[i], 0, 50, true); err != nil {
			b.Fatal(err)
		}
		s.Close() // the index saved
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s := New(projects, nil).WithCacheDir(cache)
				if _, _, err := s.Messages(context.Background(), workDir, ids[i], 0, 50, true); err != nil {
					b.Fatal(err)
				}
				if s.Stats().FullScans != 0 {
					b.Fatal("scanned after a restart")
				}
			}
		})
	}
}

// BenchmarkList lists a workspace of 1,000 sessions of about 20 KB: cold
// (a new Store reads every file) and warm (nothing changed since).
func BenchmarkList(b *testing.B) {
	projects := b.TempDir()
	d := New(projects, nil).Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		writeTranscript(b, filepath.Join(d, id+".jsonl"), id, 20<<10)
	}
	list := func(b *testing.B, s *Store) {
		got, err := s.List(context.Background(), workDir)
		if err != nil || len(got) != 1000 {
			b.Fatalf("%d sessions, %v", len(got), err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			s := New(projects, nil)
			list(b, s)
			s.Close()
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := New(projects, nil)
		defer s.Close()
		list(b, s)
		b.ResetTimer()
		for b.Loop() {
			list(b, s)
		}
	})
}

// BenchmarkTailLatency measures the time from appending a line to the
// transcript to Tail emitting its message, and reports its percentiles.
func BenchmarkTailLatency(b *testing.B) {
	projects := b.TempDir()
	p := filepath.Join(New(projects, nil).Dir(workDir), idA+".jsonl")
	msgs := make(chan rpc.Message, 1)
	c, err := New(projects, nil).Tail(context.Background(), workDir, idA, func(m rpc.Message) { msgs <- m })
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	g := newGen(idA)
	var lat []time.Duration
	for b.Loop() {
		line := g.message() + "\n"
		start := time.Now()
		if _, err := f.WriteString(line); err != nil {
			b.Fatal(err)
		}
		select {
		case <-msgs:
			lat = append(lat, time.Since(start))
		case <-time.After(waitTimeout):
			b.Fatal("no message emitted")
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkClassify classifies the lines of 10 MB of transcript held in
// memory: the CPU cost of a first index build without its reads.
func BenchmarkClassify(b *testing.B) {
	g := newGen(idA)
	g.pad = strings.Repeat(" lorem ipsum", 80)
	var data []byte
	for len(data) < 10<<20 {
		data = append(data, g.lines(1)...)
	}
	lines := bytes.Split(data[:len(data)-1], []byte("\n"))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		x := &index{}
		for _, l := range lines {
			x.add(l)
		}
	}
}

// BenchmarkIndexBuildAgentic is BenchmarkIndexBuild for a long agentic
// session: one typed prompt, then only tool calls and their results, so
// that a scan looking for the first prompt decodes every user message it
// meets until it has one.
func BenchmarkIndexBuildAgentic(b *testing.B) {
	projects := b.TempDir()
	d := New(projects, nil).Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		b.Fatal(err)
	}
	const size = 32 << 20
	f, err := os.Create(filepath.Join(d, idA+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	g := newGen(idA)
	g.pad = strings.Repeat(" lorem ipsum", 80)
	w.WriteString(g.message() + "\n") // the prompt
	for n := 0; n < size; {
		if g.n%4 == 0 {
			g.n++ // no other prompt
		}
		k, _ := w.WriteString(g.message() + "\n")
		n += k
	}
	if err := cmp.Or(w.Flush(), f.Close()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		if _, _, err := New(projects, nil).Messages(context.Background(), workDir, idA, 0, 50, true); err != nil {
			b.Fatal(err)
		}
	}
}
