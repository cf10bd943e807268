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
)

// writeSets writes the chat file of session id of workspace ws that an
// attack wrote: a header, then copies times the $set of the same list of
// n messages (user prompts and answers alternating), the last of which
// differs (its prompts end in "last"). It returns the file's path and the
// size of one $set line.
func writeSets(t testing.TB, home, ws, id string, copies, n int) (string, int) {
	t.Helper()
	dir := filepath.Join(home, "tmp", filepath.Base(ws), "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "session-2026-11-23T00-00-"+id8(id)+".jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T00:00:00.000Z","lastUpdated":"2026-11-23T00:00:00.000Z","kind":"main"}`+"\n", id, ProjectHash(ws))
	line := 0
	for c := range copies {
		tag := "copy"
		if c == copies-1 {
			tag = "last"
		}
		cw := &countWriter{w: w}
		fmt.Fprint(cw, `{"$set":{"messages":[`)
		for i := range n {
			if i > 0 {
				fmt.Fprint(cw, ",")
			}
			if i%2 == 0 {
				fmt.Fprintf(cw, `{"id":"m%07d-0000-4000-8000-000000000000","timestamp":"2026-11-23T00:00:01.000Z","type":"user","content":[{"text":"a prompt of the session, number %d %s"}]}`, i, i, tag)
			} else {
				fmt.Fprintf(cw, `{"id":"m%07d-0000-4000-8000-000000000000","timestamp":"2026-11-23T00:00:02.000Z","type":"gemini","content":"an answer %d","toolCalls":[{"id":"call%d","name":"run_shell_command","args":{"command":"ls"},"status":"success"}],"model":"gemini-2.5-flash"}`, i, i, i)
			}
		}
		fmt.Fprint(cw, "]}}\n")
		line = cw.n
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p, line
}

type countWriter struct {
	w *bufio.Writer
	n int
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += n
	return n, err
}

// retained is what x keeps of its records and their strings, in bytes:
// the memory a replay holds beyond the spans of its lines.
func retained(x *index) int { return int(x.Size()) }

// heapAfterGC is the heap in use once collected.
func heapAfterGC() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// TestSetsReleaseWhatTheyReplace: a chat file of many $sets of the same
// long message list keeps, once replayed, what one copy of the list needs,
// not what all the copies took: an attack wrote 200 such copies of 5,000
// messages and the replay kept 131 MB. The state is the last $set's.
func TestSetsReleaseWhatTheyReplace(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	const n = 1000
	oneP, _ := writeSets(t, home, ws, "0c000000-0000-4000-8000-000000000001", 1, n)
	manyP, line := writeSets(t, home, t.TempDir(), "0c000000-0000-4000-8000-000000000002", 30, n)
	one, _ := indexView(t, oneP, nil)
	base := heapAfterGC()
	many, v := indexView(t, manyP, nil)
	heap := heapAfterGC() - base
	if got, limit := retained(many), 2*retained(one)+64<<10; got > limit {
		t.Errorf("30 copies keep %d bytes of strings and records, want at most %d (one copy keeps %d)", got, limit, retained(one))
	}
	// Generous: the file holds 30 lines of %d bytes; the replay of one
	// copy's records is a fraction of one line.
	if limit := int64(4 * line); heap > limit {
		t.Errorf("30 copies keep a heap of %d bytes, want at most %d (4 lines)", heap, limit)
	}
	if v.n != n || v.prompt != "a prompt of the session, number 0 last" {
		t.Errorf("replayed %d messages, prompt %q: want %d, the last $set's", v.n, v.prompt, n)
	}
	sameView(t, "many", v, refView(t, manyP))
	runtime.KeepAlive(many)
	runtime.KeepAlive(one)
}

// TestRewritesReleaseWhatTheyReplace: a record written again and again
// (Gemini writes one again as it grows; an attack can write it without
// end) keeps what its last version needs, not what every version took.
func TestRewritesReleaseWhatTheyReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "session-2026-11-23T00-00-0c000000.jsonl")
	var b strings.Builder
	fmt.Fprintf(&b, `{"sessionId":"0c000000-0000-4000-8000-000000000003","projectHash":"h","startTime":"2026-11-23T00:00:00.000Z"}`+"\n")
	pad := strings.Repeat("p", 10<<10)
	const versions = 300
	for i := range versions {
		fmt.Fprintf(&b, `{"id":"u","timestamp":"2026-11-23T00:00:01.000Z","type":"user","content":[{"text":"%s %d"}]}`+"\n", pad, i)
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-11-23T00:00:01.000Z","type":"gemini","content":"answer"}`+"\n", i%3)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	x, v := indexView(t, p, nil)
	if got, limit := retained(x), 8*len(pad)+64<<10; got > limit {
		t.Errorf("%d versions of a record keep %d bytes of strings and records, want at most %d", versions, got, limit)
	}
	if want := fmt.Sprintf("%s %d", pad, versions-1); v.prompt != want || v.n != 4 {
		t.Errorf("replayed %d messages, prompt …%q: want 4, the last version's", v.n, v.prompt[max(0, len(v.prompt)-8):])
	}
	sameView(t, "rewrites", v, refView(t, p))
}

// BenchmarkReplaySets lists a workspace whose one chat file holds copies
// $sets of the same list of 5,000 messages (about 1 MB each), with a new
// Store each time: the cost of a replay should grow with the copies, not
// with their square, and what it keeps (kept-MB, the Store's heap once
// collected) with one copy, not with all.
func BenchmarkReplaySets(b *testing.B) {
	for _, copies := range []int{50, 200} {
		b.Run(fmt.Sprintf("copies=%d", copies), func(b *testing.B) {
			home, ws := b.TempDir(), b.TempDir()
			writeSets(b, home, ws, "0c000000-0000-4000-8000-000000000001", copies, 5000)
			ctx := context.Background()
			list := func() *Store {
				s := New(home, nil)
				got, err := s.List(ctx, ws)
				if err != nil || len(got) != 1 || got[0].MessageCount != 5000 {
					b.Fatalf("%v, %v", err, got)
				}
				return s
			}
			base := heapAfterGC()
			s := list()
			kept := heapAfterGC() - base
			s.Close()
			runtime.KeepAlive(s)
			cpu := cpuTime()
			for b.Loop() {
				list().Close()
			}
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(kept)/(1<<20), "kept-MB")
		})
	}
}
