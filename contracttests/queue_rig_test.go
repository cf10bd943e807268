package contracttests

// The queue rig: one runtime's real CLI against its fake model API, where
// a prompt starting "hold" keeps its model request open until the test
// releases it, so that prompts sent meanwhile land mid-turn without a
// sleep; and the prompts the model received, in order.

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// holdModel plays the suite's model, holding "hold…" prompts.
type holdModel struct {
	mu      sync.Mutex
	prompts []string                 // user prompts received, in order, each once
	gates   map[string]chan struct{} // hold prompt → closed on release
	arrived map[string]chan struct{} // prompt → closed once the model has it
	done    chan struct{}            // the test ended: nothing holds any more
}

func newHoldModel(t *testing.T) *holdModel {
	h := &holdModel{gates: map[string]chan struct{}{}, arrived: map[string]chan struct{}{}, done: make(chan struct{})}
	// Registered after the fake API started, so it runs before the fake
	// closes (which waits for the requests it serves).
	t.Cleanup(func() { close(h.done) })
	return h
}

func (h *holdModel) chans(prompt string) (gate, arrived chan struct{}) {
	if h.gates[prompt] == nil {
		h.gates[prompt], h.arrived[prompt] = make(chan struct{}), make(chan struct{})
	}
	return h.gates[prompt], h.arrived[prompt]
}

func (h *holdModel) model(prompt string, toolResult *string) move {
	if toolResult != nil {
		return move{text: "tool said: " + *toolResult}
	}
	h.mu.Lock()
	gate, arrived := h.chans(prompt)
	first := true
	for _, p := range h.prompts {
		first = first && p != prompt
	}
	if first {
		// A CLI may ask again for the same prompt (a retry): the order
		// is that of first arrivals.
		h.prompts = append(h.prompts, prompt)
		close(arrived)
	}
	h.mu.Unlock()
	if strings.HasPrefix(prompt, "hold") {
		select {
		case <-gate:
		case <-h.done:
		}
	}
	return move{text: "echo: " + prompt}
}

// awaitArrival waits until the model has received prompt.
func (h *holdModel) awaitArrival(t *testing.T, ctx context.Context, prompt string) {
	t.Helper()
	h.mu.Lock()
	_, arrived := h.chans(prompt)
	h.mu.Unlock()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatalf("the model never received %q (it received %q)", prompt, h.received())
	}
}

// release lets a held prompt's request answer.
func (h *holdModel) release(prompt string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	gate, _ := h.chans(prompt)
	select {
	case <-gate:
	default:
		close(gate)
	}
}

func (h *holdModel) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.prompts...)
}

// queueCtx bounds a queue test of rt: several turns of a real CLI one
// after another, and a daemon restart with a resume, where the suite's
// wait bounds one step and a resume may also take the runtime's loadWait.
func queueCtx(t *testing.T, rt scenarioRuntime) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*wait+rt.loadWait)
	t.Cleanup(cancel)
	return ctx
}

// queueRig is one runtime's CLI and fake, and cdevd in front of them: a
// daemon that the test may shut down and start again on the same home.
type queueRig struct {
	rt    scenarioRuntime
	hold  *holdModel
	rr    runtimeRig
	home  string
	d     *daemon.Daemon
	url   string
	token string
}

func newQueueRig(t *testing.T, rt scenarioRuntime) *queueRig {
	t.Helper()
	mark := markProcesses(t, "CDEVD_QUEUE", rt.id)
	r := &queueRig{rt: rt, home: t.TempDir()}
	// The fake API starts first, so that it closes after cdevd has ended
	// the CLIs; the model lets go of held requests before it closes.
	r.rr = rt.start(t, mark, func(p string, tr *string) move { return r.hold.model(p, tr) })
	r.hold = newHoldModel(t)
	r.startDaemon(t)
	return r
}

// startDaemon starts cdevd on the rig's home.
func (r *queueRig) startDaemon(t *testing.T) {
	t.Helper()
	r.d = StartDaemon(t, daemon.Config{Home: r.home, Adapters: []runtimes.Adapter{r.rr.adapter}})
	r.url, r.token = r.d.URL(), r.d.Token()
}

// restart shuts cdevd down and starts it again on the same home.
func (r *queueRig) restart(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := r.d.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	r.startDaemon(t)
}

// send sends prompt and returns send's result.
func (r *queueRig) send(t *testing.T, ctx context.Context, c *Client, id, prompt string) rpc.SessionSendResult {
	t.Helper()
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: r.rt.id}, &res)
	return res
}

// queued sends prompt during a turn and checks it was queued at pos.
func (r *queueRig) queued(t *testing.T, ctx context.Context, c *Client, id, prompt string, pos int) string {
	t.Helper()
	res := r.send(t, ctx, c, id, prompt)
	if res.Status != rpc.SendQueued || res.Position != pos || res.QueueID == "" || res.SessionID != id {
		t.Fatalf("session/send %q during a turn = %+v, want queued at %d", prompt, res, pos)
	}
	return res.QueueID
}

// list is the session's queue.
func (r *queueRig) list(t *testing.T, ctx context.Context, c *Client, id string) rpc.QueueResult {
	t.Helper()
	var res rpc.QueueResult
	c.MustCall(ctx, rpc.MethodQueueList, rpc.QueueParams{SessionID: id}, &res)
	return res
}

// prompts are a queue's prompts, in order.
func prompts(q rpc.Queue) []string {
	out := []string{}
	for _, it := range q.Items {
		out = append(out, it.Prompt)
	}
	return out
}

// awaitQueue waits until c has seen a queue_changed for id whose queue
// satisfies ok, and returns it.
func awaitQueue(t *testing.T, ctx context.Context, c *Client, id string, ok func(rpc.Queue) bool) rpc.QueueChangedEvent {
	t.Helper()
	var got rpc.QueueChangedEvent
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			var ev rpc.QueueChangedEvent
			if n.Type() == rpc.EventQueueChanged && n.Header().SessionID == id && n.Decode(&ev) == nil && ok(ev.Queue) {
				got = ev
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("awaiting the queue of %s: %v", id, err)
	}
	return got
}

// turnsCompleted waits until c has seen n turn_completed events of id.
func turnsCompleted(t *testing.T, ctx context.Context, c *Client, id string, n int) {
	t.Helper()
	if err := c.Until(ctx, func(ns []Notification) bool {
		return count(ns, func(x Notification) bool {
			return x.Type() == rpc.EventTurnCompleted && x.Header().SessionID == id
		}) >= n
	}); err != nil {
		t.Fatalf("awaiting %d completed turns: %v", n, err)
	}
}
