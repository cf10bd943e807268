package contracttests

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// nobody is a Presence with nobody present: the benchmark's client watches
// (to time the event's own arrival) and the webhook is still sent to.
type nobody struct{}

func (nobody) Present(string) bool { return false }

// BenchmarkNotifyPermission: from the model's reply that makes the real
// Claude CLI ask for permission to the webhook's POST on loopback, beside
// the pty_permission event's arrival at a watching client, in the same run.
// The CLI's own request is not visible from outside it; the fake API's
// reply is the nearest point both paths share.
func BenchmarkNotifyPermission(b *testing.B) {
	r := newNotifyRig(b, time.Minute, nobody{})
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	c, _ := Connect(b, ctx, r.url, r.token)
	w := notifyWorkspace(b, ctx, c)
	var started rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID}, &started)
	id := started.SessionID
	event := func(typ string) Notification {
		n, err := c.Await(ctx, Event(typ, id))
		if err != nil {
			b.Fatalf("awaiting %s: %v", typ, err)
		}
		return n
	}

	var mu sync.Mutex
	var replied time.Time
	call := callTool("Bash", map[string]string{"command": "echo go >> bench.txt", "description": "append to bench.txt"})
	r.fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		reply := call(req)
		if _, answer := req.ToolResult(); req.HasTool("Bash") && !answer {
			mu.Lock()
			replied = time.Now()
			mu.Unlock()
		}
		return reply
	})
	b.Cleanup(func() { r.fake.Respond(nil) })

	var toClient, toHook, hookAfterClient []time.Duration
	for b.Loop() {
		c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: "go", AgentType: claude.ID}, nil)
		var p rpc.PermissionEvent
		if err := event(rpc.EventPermission).Decode(&p); err != nil {
			b.Fatal(err)
		}
		seen := time.Now()
		post := r.next(b, ctx)
		if post.note.RequestID != p.RequestID {
			b.Fatalf("POST for %s, asked %s", post.note.RequestID, p.RequestID)
		}
		mu.Lock()
		t0 := replied
		mu.Unlock()
		toClient = append(toClient, seen.Sub(t0))
		toHook = append(toHook, post.at.Sub(t0))
		hookAfterClient = append(hookAfterClient, post.at.Sub(seen))
		c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
			Response: "yes", RequestID: p.RequestID, AgentType: claude.ID}, nil)
		r.next(b, ctx) // the withdrawal
		event(rpc.EventTurnCompleted)
		r.next(b, ctx) // the turn's end
	}
	p := func(ds []time.Duration, q float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	b.ReportMetric(float64(p(toClient, 0.5).Microseconds()), "client-p50-µs")
	b.ReportMetric(float64(p(toClient, 0.99).Microseconds()), "client-p99-µs")
	b.ReportMetric(float64(p(toHook, 0.5).Microseconds()), "webhook-p50-µs")
	b.ReportMetric(float64(p(toHook, 0.99).Microseconds()), "webhook-p99-µs")
	// Negative: the POST arrived before the client had the event.
	b.ReportMetric(float64(p(hookAfterClient, 0.5).Microseconds()), "webhook-after-client-p50-µs")
}
