package contracttests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// BenchmarkFileGet1MB: workspace/file/get of a 1 MB text file, the whole
// round trip from a client's write to its reading of the reply (target:
// ≤ 10 ms). Reported as p50 and p95.
func BenchmarkFileGet1MB(b *testing.B) {
	d := benchDaemon(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ws := benchDial(b, ctx, d.URL(), d.Token())
	defer ws.Close()
	roundTrip(b, ws, []byte(initializeFrame))
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte(strings.Repeat(line, 10_000)), 0o644); err != nil {
		b.Fatal(err)
	}
	var w rpc.Workspace
	benchCall(b, ws, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	params := rpc.FileGetParams{WorkspaceID: w.ID, Path: "one.txt"}
	var res rpc.FileGetResult
	benchCall(b, ws, rpc.MethodFileGet, params, &res)
	if len(res.Content) != 1_000_000 || res.Truncated {
		b.Fatalf("got %d bytes, truncated %v", len(res.Content), res.Truncated)
	}
	// The loop reads the reply without decoding it: what is measured is
	// cdevd's part (read, encode, send) and the socket, not this client's
	// JSON decoder (which, on 1 MB, costs as much again).
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": rpc.MethodFileGet, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, 0, b.N)
	b.SetBytes(1_000_000)
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		reply := roundTrip(b, ws, frame)
		took = append(took, time.Since(began))
		if len(reply) < 1_000_000 || !bytes.HasPrefix(reply, []byte(`{"jsonrpc":"2.0","id":2,"result"`)) {
			b.Fatalf("reply %.200s", reply)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}
