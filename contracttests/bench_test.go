package contracttests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The benchmarks drive cdevd with bare gorilla connections rather than
// Client: validating every message against the schema would cost more than
// what is measured.

const initializeFrame = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0","clientInfo":{"name":"bench","version":"1"}}}`

func benchDaemon(b *testing.B) *daemon.Daemon {
	b.Helper()
	if _, _, ok := external(); ok {
		b.Skipf("benchmarks run cdevd in process; %s targets an external server", envURL)
	}
	return StartDaemon(b, daemon.Config{Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: b.TempDir()})}})
}

func benchDial(b *testing.B, ctx context.Context, url, token string) *websocket.Conn {
	b.Helper()
	ws, _, err := DialWebSocket(ctx, url, token)
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// roundTrip writes one frame and reads one.
func roundTrip(b *testing.B, ws *websocket.Conn, frame []byte) []byte {
	if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		b.Fatal(err)
	}
	_, reply, err := ws.ReadMessage()
	if err != nil {
		b.Fatal(err)
	}
	return reply
}

// benchCall sends a request with id 1 and decodes its result into out,
// skipping the notifications that come first.
func benchCall(b *testing.B, ws *websocket.Conn, method string, params, out any) {
	b.Helper()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		b.Fatal(err)
	}
	for {
		_, f, err := ws.ReadMessage()
		if err != nil {
			b.Fatal(err)
		}
		var r struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *rpc.Error
		}
		if err := json.Unmarshal(f, &r); err != nil {
			b.Fatal(err)
		}
		switch {
		case r.ID == nil:
			continue // a notification
		case r.Error != nil:
			b.Fatalf("%s: %v", method, r.Error)
		case out != nil:
			if err := json.Unmarshal(r.Result, out); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
}

// until polls cond, which reports on something a benchmark cannot wait
// for otherwise (another process's bookkeeping), for at most a minute.
func until(b *testing.B, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting until %s", what)
		}
		<-tick.C
	}
}

// openConns reads cdevd's connections_open gauge from /metrics.
func openConns(b *testing.B, d *daemon.Daemon) int {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+d.Addr()+"/metrics", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.Token())
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "cdevd_connections_open "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			return int(n)
		}
	}
	b.Fatal("no cdevd_connections_open in /metrics")
	return 0
}

// echoServer is a bare gorilla/websocket server that answers every frame
// with a frame of replySize bytes. open counts its live connections.
func echoServer(b *testing.B, replySize int) (url string, open *atomic.Int64) {
	reply := []byte(strings.Repeat("x", replySize))
	open = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		open.Add(1)
		defer open.Add(-1)
		defer ws.Close()
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
			if err := ws.WriteMessage(websocket.TextMessage, reply); err != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), open
}

// BenchmarkInitialize times an initialize round trip on a fresh connection
// (dialing is not timed) against a bare WebSocket round trip that carries
// the same number of bytes each way.
func BenchmarkInitialize(b *testing.B) {
	d := benchDaemon(b)
	ctx := b.Context()
	// Warm up: the first initialize detects the runtime's CLI.
	ws := benchDial(b, ctx, d.URL(), d.Token())
	reply := roundTrip(b, ws, []byte(initializeFrame))
	ws.Close()
	echoURL, _ := echoServer(b, len(reply))
	echo := benchDial(b, ctx, echoURL, "")
	defer echo.Close()

	var initTime, echoTime time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		ws := benchDial(b, ctx, d.URL(), d.Token())
		b.StartTimer()
		start := time.Now()
		if r := roundTrip(b, ws, []byte(initializeFrame)); !strings.Contains(string(r), `"result"`) {
			b.Fatalf("initialize: %s", r)
		}
		initTime += time.Since(start)
		start = time.Now()
		roundTrip(b, echo, []byte(initializeFrame))
		echoTime += time.Since(start)
		b.StopTimer()
		ws.Close()
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(initTime.Nanoseconds())/n, "initialize-ns/op")
	b.ReportMetric(float64(echoTime.Nanoseconds())/n, "echo-ns/op")
	b.ReportMetric(float64(initTime)/float64(echoTime), "initialize/echo")
	b.ReportMetric(float64(len(reply)), "reply-bytes")
}

// BenchmarkWorkspaceList times a cheap method's round trip (workspace/list
// with one workspace) on an initialized connection against a bare WebSocket
// round trip carrying the same bytes each way, alternating the two so that
// both see the same machine. It reports each one's median.
func BenchmarkWorkspaceList(b *testing.B) {
	d := benchDaemon(b)
	ctx := b.Context()
	ws := benchDial(b, ctx, d.URL(), d.Token())
	defer ws.Close()
	roundTrip(b, ws, []byte(initializeFrame))
	benchCall(b, ws, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: b.TempDir()}, nil)
	frame := []byte(`{"jsonrpc":"2.0","id":2,"method":"workspace/list","params":{}}`)
	reply := roundTrip(b, ws, frame)
	if !strings.Contains(string(reply), `"workspaces"`) {
		b.Fatalf("workspace/list: %s", reply)
	}
	echoURL, _ := echoServer(b, len(reply))
	echo := benchDial(b, ctx, echoURL, "")
	defer echo.Close()

	calls := make([]time.Duration, 0, b.N)
	echoes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		roundTrip(b, ws, frame)
		calls = append(calls, time.Since(start))
		start = time.Now()
		roundTrip(b, echo, frame)
		echoes = append(echoes, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(calls)
	slices.Sort(echoes)
	call, bare := calls[len(calls)/2], echoes[len(echoes)/2]
	b.ReportMetric(float64(call.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(bare.Nanoseconds()), "echo-p50-ns")
	b.ReportMetric(float64(call)/float64(bare), "call/echo")
	b.ReportMetric(float64(len(reply)), "reply-bytes")
}

// liveBytes is what the heap and goroutine stacks hold after a collection.
func liveBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// BenchmarkIdleConnMemory opens n initialized, idle connections and
// reports the memory each costs. Both ends live in this process, so the same
// is measured for a bare gorilla/websocket echo server: the difference is
// cdevd's own cost.
func BenchmarkIdleConnMemory(b *testing.B) {
	const n = 200
	d := benchDaemon(b)
	ctx := b.Context()
	bare, bareOpen := echoServer(b, len(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	// measure opens conns, measures, closes them and waits until the
	// server has let go of them.
	measure := func(url, token string, open func() int) float64 {
		before := liveBytes()
		conns := make([]*websocket.Conn, n)
		for i := range conns {
			conns[i] = benchDial(b, ctx, url, token)
			roundTrip(b, conns[i], []byte(initializeFrame))
		}
		after := liveBytes()
		for _, ws := range conns {
			ws.Close()
		}
		until(b, "the server closed the connections", func() bool { return open() == 0 })
		return float64(int64(after)-int64(before)) / n
	}
	var cdevd, echo float64
	for range b.N {
		cdevd += measure(d.URL(), d.Token(), func() int { return openConns(b, d) })
		echo += measure(bare, "", func() int { return int(bareOpen.Load()) })
	}
	b.ReportMetric(cdevd/float64(b.N), "bytes/conn")
	b.ReportMetric(echo/float64(b.N), "bare-bytes/conn")
	b.ReportMetric((cdevd-echo)/float64(b.N), "cdevd-bytes/conn")
}

// BenchmarkFanout100 streams one turn's events to 100 watchers of the same
// session and reports the delivery rate and the 99th percentile of the time
// from an event's creation (its timestamp) to its arrival at a watcher.
func BenchmarkFanout100(b *testing.B) {
	const watchers, deltas = 100, 500
	d := benchDaemon(b)
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()

	owner := benchDial(b, ctx, d.URL(), d.Token())
	roundTrip(b, owner, []byte(initializeFrame))
	var ws rpc.Workspace
	benchCall(b, owner, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: b.TempDir()}, &ws)
	var started rpc.SessionStartResult
	benchCall(b, owner, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: ws.ID}, &started)
	id := started.SessionID
	// The owner reads its own copy of the events so that it is never cut off.
	ownerDone := make(chan struct{})
	go func() {
		defer close(ownerDone)
		for {
			if _, _, err := owner.ReadMessage(); err != nil {
				return
			}
		}
	}()

	type arrival struct {
		latency time.Duration
		end     bool
	}
	arrivals := make(chan arrival, watchers*64)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	conns := []*websocket.Conn{owner}
	defer func() {
		close(stop)
		for _, c := range conns {
			c.Close()
		}
		readers.Wait()
		<-ownerDone
	}()
	for range watchers {
		c := benchDial(b, ctx, d.URL(), d.Token())
		conns = append(conns, c)
		roundTrip(b, c, []byte(initializeFrame))
		var res rpc.WatchResult
		benchCall(b, c, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: ws.ID, SessionID: id}, &res)
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				_, f, err := c.ReadMessage()
				now := time.Now()
				if err != nil {
					return
				}
				var n struct {
					Method string `json:"method"`
					Params struct {
						Timestamp time.Time `json:"timestamp"`
					} `json:"params"`
				}
				if json.Unmarshal(f, &n) != nil || !strings.HasPrefix(n.Method, rpc.EventPrefix) {
					continue
				}
				select {
				case arrivals <- arrival{now.Sub(n.Params.Timestamp), n.Method == rpc.EventPrefix+rpc.EventTurnCompleted}:
				case <-stop:
					return
				}
			}
		}()
	}

	steps := make([]map[string]any, deltas)
	for i := range steps {
		steps[i] = map[string]any{"delta": "x"}
	}
	prompt, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": rpc.MethodSessionSend,
		"params": rpc.SessionSendParams{SessionID: id, Prompt: script(steps...)}})
	if err != nil {
		b.Fatal(err)
	}

	var latencies []time.Duration
	var elapsed time.Duration
	events := 0
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		// A notification: its reply would race with the events for the owner's reader.
		if err := owner.WriteMessage(websocket.TextMessage, prompt); err != nil {
			b.Fatal(err)
		}
		for ended := 0; ended < watchers; {
			select {
			case a := <-arrivals:
				latencies = append(latencies, a.latency)
				events++
				if a.end {
					ended++
				}
			case <-ctx.Done():
				b.Fatal(ctx.Err())
			}
		}
		elapsed += time.Since(began)
	}
	b.StopTimer()
	slices.Sort(latencies)
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
}
