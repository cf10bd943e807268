package kit

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// A fake CLI that speaks JSON-RPC on stdio: it sends a notification and a
// request of its own before each answer (a Probe must skip both), and
// answers "fail" with an error.
const rpcCLI = `while read -r line; do
  case "$line" in
    *'"method":"fail"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no such thing"}}\n' "$(echo "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')" ;;
    *) echo '{"jsonrpc":"2.0","method":"note","params":{"n":1}}'
       echo '{"jsonrpc":"2.0","id":"srv-1","method":"ask","params":{}}'
       printf '{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}\n' "$(echo "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')" ;;
  esac
done`

func probe(t *testing.T, script string) *Probe {
	t.Helper()
	p, err := StartProbe("/bin/sh", []string{"-c", script}, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func TestProbeCall(t *testing.T) {
	p := probe(t, rpcCLI)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var notes []string
	var res struct {
		OK bool `json:"ok"`
	}
	for range 2 { // ids advance: the second answer is matched to the second call
		if err := p.Call(ctx, "hello", map[string]int{"x": 1}, &res, func(m string, _ json.RawMessage) { notes = append(notes, m) }); err != nil || !res.OK {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
	if strings.Join(notes, ",") != "note,note" {
		t.Errorf("notifications seen %q; the agent's own request is not one", notes)
	}
	if err := p.Call(ctx, "fail", nil, nil, nil); err == nil || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("an error answer: %v", err)
	}
}

func TestProbeEnds(t *testing.T) {
	// A CLI that exits without answering.
	p := probe(t, "exit 3")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.Await(ctx, func([]byte) bool { return true }); err == nil || !strings.Contains(err.Error(), "code 3") {
		t.Errorf("a CLI that exited: %v", err)
	}
	// One that never answers: the caller's deadline ends the wait, and
	// Close ends the process.
	p = probe(t, "sleep 60")
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	if err := p.Call(ctx, "hello", nil, nil, nil); err == nil {
		t.Error("a call to a silent CLI returned no error")
	}
	p.Close()
	select {
	case <-p.p.Done():
	default:
		t.Error("Close returned with the CLI still running")
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("ending a silent CLI took %v", took)
	}
}
