package contracttests

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// BenchmarkQueueHandover measures, with the real Claude CLI, the time from
// one turn's end (its turn_completed, as cdevd stamped it, to the
// millisecond) to the model API's first request of the next turn:
// handover-ms when the next prompt waited in cdevd's queue, client-ms when
// a client sent it itself on hearing turn_completed (what a client had to
// do before the queue; the same kind of held turn before it), and
// drain-ms, from the turn's end to the queue handing the prompt on (its
// queue_changed, stamped just before the turn starts: cdevd's own part),
// idle-send-ms, from a session/send to an idle session to the request
// (cdevd's send path and the CLI's own time from its stdin to its
// request).
func BenchmarkQueueHandover(b *testing.B) {
	if _, _, ok := external(); ok {
		b.Skipf("needs cdevd in process with a fake model API; %s targets an external server", envURL)
	}
	fake := fakeanthropic.New(b)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	gates := map[string]chan struct{}{}
	done := make(chan struct{})
	b.Cleanup(func() { close(done) })
	gate := func(p string) chan struct{} {
		if gates[p] == nil {
			gates[p] = make(chan struct{})
		}
		return gates[p]
	}
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if !req.HasTool("Bash") {
			return fakeanthropic.Echo(req)
		}
		p := req.LastUserText()
		mu.Lock()
		if _, ok := arrived[p]; !ok {
			arrived[p] = time.Now()
		}
		g := gate(p)
		mu.Unlock()
		if len(p) > 4 && p[:4] == "hold" {
			select {
			case <-g:
			case <-done:
			}
		}
		return fakeanthropic.Text("ok")
	})
	arrival := func(ctx context.Context, p string) time.Time {
		for {
			mu.Lock()
			at, ok := arrived[p]
			mu.Unlock()
			if ok {
				return at
			}
			select {
			case <-ctx.Done():
				b.Fatalf("the model never received %q", p)
			case <-time.After(time.Millisecond): // polls the fake's record; not what is measured
			}
		}
	}
	d := StartDaemon(b, daemon.Config{Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(b), Env: claudetest.Env(b, fake.URL()), KillGrace: 2 * time.Second}),
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, _ := Connect(b, ctx, d.URL(), d.Token())
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	var st rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID}, &st)
	id := st.SessionID
	send := func(p string) rpc.SessionSendResult {
		var res rpc.SessionSendResult
		c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: p, AgentType: claude.ID}, &res)
		return res
	}
	stamp := func(typ string) time.Time {
		n, err := c.Await(ctx, Event(typ, id))
		if err != nil {
			b.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339Nano, n.Header().Timestamp)
		if err != nil {
			b.Fatal(err)
		}
		return at
	}
	ended := func() time.Time { return stamp(rpc.EventTurnCompleted) }
	var handover, drain, client, idle []float64
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ResetTimer()
	// Both hand-overs follow a held turn of the same kind: the queued one
	// (a then b) and the client's own (c then d).
	release := func(p string) {
		mu.Lock()
		close(gate(p))
		mu.Unlock()
	}
	for i := range b.N {
		a, next, c2, own := fmt.Sprintf("hold a%d", i), fmt.Sprintf("next %d", i), fmt.Sprintf("hold c%d", i), fmt.Sprintf("own %d", i)
		sent := time.Now()
		send(a)
		idle = append(idle, ms(arrival(ctx, a).Sub(sent)))
		if res := send(next); res.Status != rpc.SendQueued {
			b.Fatalf("send during a turn = %+v", res)
		}
		stamp(rpc.EventQueueChanged) // next queued
		release(a)
		end := ended()
		handover = append(handover, ms(arrival(ctx, next).Sub(end)))
		drain = append(drain, ms(stamp(rpc.EventQueueChanged).Sub(end))) // next taken from the queue
		ended()
		send(c2)
		arrival(ctx, c2)
		release(c2)
		end = ended()
		send(own)
		client = append(client, ms(arrival(ctx, own).Sub(end)))
		ended()
	}
	b.StopTimer()
	med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	b.ReportMetric(med(handover), "handover-ms")
	b.ReportMetric(med(drain), "drain-ms")
	b.ReportMetric(med(client), "client-ms")
	b.ReportMetric(med(idle), "idle-send-ms")
	b.ReportMetric(0, "ns/op")
}
