package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// countsOf is what TokenCounts gave before the index gathered the counts:
// a read of the whole rollout, each token_count decoded by encoding/json.
func countsOf(b []byte, since time.Time) []runtimes.TokenCount {
	var out []runtimes.TokenCount
	var last codexUsage
	var sp jsonl.Splitter
	sp.Feed(b, func(_ int64, line []byte) {
		var l Line // a line encoding/json decodes whole, without a type error
		if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" ||
			l.Payload.Type != "token_count" || l.Payload.Info == nil || l.Payload.Info.Total == last {
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
	return out
}

// countLine is a token_count line whose running total is total and whose
// call used last input tokens.
func countLine(ts string, total, last int) string {
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":1,"output_tokens":2},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":1,"output_tokens":2}},"rate_limits":{"primary":null}}}`,
		ts, total, last)
}

// bigWithCounts is a big rollout of ws whose token_count lines carry
// running totals, every third one a repeat (a rate-limit update), so that
// the parts a big scan is cut into begin with repeats and new calls alike.
func bigWithCounts(t *testing.T, home, ws string, size int64) string {
	t.Helper()
	p := writeBig(t, home, ws, threadA, size)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), `{"timestamp":"2026-11-23T00:00:05.000Z","type":"event_msg","payload":{"type":"token_count","info":{}}}`)
	var sb strings.Builder
	total := 0
	for i, part := range parts {
		sb.WriteString(part)
		if i == len(parts)-1 {
			break
		}
		if i%3 != 2 {
			total += 10 + i%7
		}
		sb.WriteString(countLine(fmt.Sprintf("2026-11-23T00:%02d:%02d.%03dZ", i/3600%60, i/60%60, i%1000), total, 10+i%7))
	}
	if err := os.WriteFile(p, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTokenCountsFromIndex: the counts a rollout's index gathers (in parts
// on every core for a big one, then extended as it grows, then persisted
// for a restart) are the counts a read of the whole rollout gives.
func TestTokenCountsFromIndex(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // at least two parts
	home, ws, cache := t.TempDir(), t.TempDir(), t.TempDir()
	p := bigWithCounts(t, home, ws, 17<<20)
	ctx := context.Background()
	since := time.Date(2026, 11, 23, 0, 1, 0, 0, time.UTC)
	var all []runtimes.TokenCount // what a read of the whole rollout gives
	reread := func() {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = countsOf(b, time.Time{})
	}
	check := func(s *Store, what string) {
		t.Helper()
		for _, from := range []time.Time{{}, since} {
			got, err := s.TokenCounts(ctx, ws, threadA, from)
			want := slices.DeleteFunc(slices.Clone(all), func(c runtimes.TokenCount) bool { return c.At.Before(from) })
			if err != nil || len(want) < 100 || !equalCounts(got, want) {
				t.Fatalf("%s since %v: %d counts, %v; want %d", what, from, len(got), err, len(want))
			}
		}
	}
	reread()
	s := newStore(t, home).WithCacheDir(cache)
	check(s, "a big rollout indexed in parts")
	// A new call, then a repeat of it.
	appendFile(t, p, countLine("2026-11-24T00:00:00.000Z", 1, 1)+"\n"+countLine("2026-11-24T00:00:01.000Z", 1, 1)+"\n")
	reread()
	check(s, "grown")
	if s.Stats().FullScans != 1 {
		t.Fatalf("%d full scans, want 1: growth was read from the old end", s.Stats().FullScans)
	}
	s.Close() // the index saved
	restarted := newStore(t, home).WithCacheDir(cache)
	check(restarted, "after a restart")
	if n := restarted.Stats().FullScans; n != 0 {
		t.Fatalf("after a restart: %d full scans, want the persisted index", n)
	}
}

// TestTokensMerge: token counts gathered in two parts and merged are
// those gathered over the whole, wherever the cut falls: a part that
// begins with a repeat of the total before it, or with a zero total, or
// with a time that does not parse.
func TestTokensMerge(t *testing.T) {
	lines := []string{
		`{"type":"event_msg","payload":{"type":"token_count","info":null}}`,
		countLine("2026-11-23T00:00:00Z", 0, 5),
		countLine("2026-11-23T00:00:01Z", 10, 10),
		countLine("2026-11-23T00:00:02Z", 10, 10),
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u","content":[]}}}`,
		countLine("not a time", 20, 10),
		countLine("2026-11-23T00:00:03Z", 20, 10),
		countLine("2026-11-23T00:00:04Z", 0, 3),
		countLine("2026-11-23T00:00:05Z", 0, 3),
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1.5}}}}`,
		countLine("2026-11-23T00:00:06+02:00", 30, 10),
	}
	counts := func(x *index) []call {
		var out []call
		x.tok.each(func(c call) { out = append(out, c) })
		return out
	}
	gather := func(ls []string) *index {
		x := &index{}
		for _, l := range ls {
			x.add([]byte(l))
		}
		return x
	}
	whole := counts(gather(lines))
	var want []runtimes.TokenCount
	for _, c := range whole {
		if c.nsec >= 0 {
			want = append(want, runtimes.TokenCount{At: time.Unix(c.sec, c.nsec), Usage: c.usage})
		}
	}
	if ref := countsOf([]byte(strings.Join(lines, "\n")+"\n"), time.Time{}); !equalCounts(want, ref) || len(whole) != 5 {
		t.Fatalf("whole: %+v (%d calls); a read of the whole: %+v", want, len(whole), ref)
	}
	for cut := range len(lines) + 1 {
		for second := cut; second <= len(lines); second++ {
			x := gather(lines[:cut])
			x.Merge(gather(lines[cut:second]))
			x.Merge(gather(lines[second:]))
			if got := counts(x); !reflect.DeepEqual(got, whole) {
				t.Fatalf("cut at %d and %d: %+v; whole: %+v", cut, second, got, whole)
			}
		}
	}
}

// TestTokenCountLinesRead: the line schema takes Codex's token_count lines
// (an index reads thousands in a big rollout); TestSchemas holds it to
// encoding/json.
func TestTokenCountLinesRead(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, l := range append(bytes.Split(b, []byte("\n")), []byte(countLine("t", 1, 2))) {
		var got Line
		if bytes.Contains(l, []byte(`"token_count"`)) && !bytes.Contains(l, []byte(`"info":null`)) {
			if !lineSchema.Read(l, &got) || got.Payload.Info == nil {
				t.Errorf("the schema refused %s", l)
			}
			taken++
		}
	}
	if taken < 4 { // the captured rollout's, and countLine's
		t.Fatalf("%d token_count lines", taken)
	}
}

// FuzzTokenCount: what an index counts of a valid JSON line is what
// encoding/json reads of it (countsOf), whichever way the index read it.
func FuzzTokenCount(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "exec.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	for _, l := range []string{
		countLine("2026-11-23T00:00:00Z", 3, 2),
		countLine(`2026-11-23T00:00:00\u005a`, 3, 2),
		`{"timestamp":5,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1}}}}`,
		`{"timestamp":"2026-11-23T00:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1}},"INFO":null}}`,
		`{"timestamp":"2026-11-23T00:00:00Z","type":"event_msg","payload":{"info":{"last_token_usage":{"output_tokens":4},"total_token_usage":{"input_tokens":1}},"type":"token_count"}}`,
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.IndexByte(b, '\n') >= 0 || !json.Valid(b) {
			return
		}
		x := &index{}
		x.add(b)
		var got []runtimes.TokenCount
		x.tok.each(func(c call) {
			if c.nsec >= 0 {
				got = append(got, runtimes.TokenCount{At: time.Unix(c.sec, c.nsec), Usage: c.usage})
			}
		})
		if want := countsOf(append(b, '\n'), time.Time{}); !equalCounts(got, want) {
			t.Fatalf("%s: counted %+v, want %+v", b, got, want)
		}
	})
}
