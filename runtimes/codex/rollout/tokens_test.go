package rollout

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// The rollout the pinned CLI wrote (testdata/exec.jsonl: two turns, three
// model calls) gives one count per call, from its token_count events; a
// token_count that repeats the running total (Codex sends one when only
// its rate limits changed) is not counted again; cached input is split
// out of input_tokens as Claude counts; since drops older calls.
func TestTokenCounts(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	p := install(t, home, "exec.jsonl", "2026/11/23", threadA, ws)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var lastCount string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"type":"token_count"`) {
			lastCount = l
		}
	}
	appendFile(t, p, lastCount+"\n"+
		`{"timestamp":"2026-11-24T09:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{`+
		`"total_token_usage":{"input_tokens":22088,"cached_input_tokens":1000,"output_tokens":22,"total_tokens":22110},`+
		`"last_token_usage":{"input_tokens":1500,"cached_input_tokens":1000,"output_tokens":7,"total_tokens":1507}}}}`+"\n")
	s := newStore(t, home)

	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	want := []runtimes.TokenCount{
		{At: at("2026-11-23T00:50:55.781Z"), Usage: rpc.Usage{InputTokens: 6826, OutputTokens: 5}},
		{At: at("2026-11-23T00:50:55.800Z"), Usage: rpc.Usage{InputTokens: 6865, OutputTokens: 6}},
		{At: at("2026-11-23T00:50:56.046Z"), Usage: rpc.Usage{InputTokens: 6897, OutputTokens: 4}},
		{At: at("2026-11-24T09:00:00Z"), Usage: rpc.Usage{InputTokens: 500, CacheReadInputTokens: 1000, OutputTokens: 7}},
	}
	got, err := s.TokenCounts(context.Background(), ws, threadA, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalCounts(got, want) {
		t.Fatalf("counts\n got %+v\nwant %+v", got, want)
	}
	got, err = s.TokenCounts(context.Background(), ws, threadA, at("2026-11-23T00:50:55.800Z"))
	if err != nil {
		t.Fatal(err)
	}
	if !equalCounts(got, want[1:]) {
		t.Fatalf("counts since the second call\n got %+v\nwant %+v", got, want[1:])
	}
	if _, err := s.TokenCounts(context.Background(), t.TempDir(), threadA, time.Time{}); !errors.Is(err, runtimes.ErrNoSession) {
		t.Fatalf("another workspace's thread: %v, want ErrNoSession", err)
	}
}

func equalCounts(a, b []runtimes.TokenCount) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].At.Equal(b[i].At) || a[i].Usage != b[i].Usage {
			return false
		}
	}
	return true
}
