package kit

import (
	"context"
	"fmt"
	"sync"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Staller is the stall timer of a session's process (proc.Process has it):
// armed while the CLI owes output, disarmed while it waits for a person.
type Staller interface {
	ArmStall()
	DisarmStall()
}

type noStall struct{}

func (noStall) ArmStall()    {}
func (noStall) DisarmStall() {}

// Turn is a session's turn state: whether a turn runs, the prompts it
// waits on (with whatever the adapter needs to answer each), and whether
// the process has exited. Every method is safe for concurrent use; the
// events it emits are ordered as the calls were.
type Turn struct {
	em    *Emitter
	stall Staller

	mu          sync.Mutex
	idle        chan struct{} // closed when the running turn ends; nil while none runs
	busy        bool
	interrupted bool
	exited      bool
	pending     []pendingPrompt // oldest first
}

type pendingPrompt struct {
	id       string
	data     any
	answered bool
}

// NewTurn returns the turn state of a session emitting through em. stall
// may be nil (set it later with SetStaller, once the process exists).
func NewTurn(em *Emitter, stall Staller) *Turn {
	if stall == nil {
		stall = noStall{}
	}
	return &Turn{em: em, stall: stall}
}

// SetStaller attaches the process's stall timer.
func (t *Turn) SetStaller(s Staller) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stall = s
}

// Begin starts a turn: ErrExited once the process is gone, ErrBusy while a
// turn runs (CLIs that would merge or cancel instead are never asked).
func (t *Turn) Begin() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.exited:
		return runtimes.ErrExited
	case t.busy:
		return runtimes.ErrBusy
	}
	t.busy, t.interrupted = true, false
	t.idle = make(chan struct{})
	t.stall.ArmStall()
	t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	return nil
}

// Retrying says that the CLI retries a failed model call on its own: the
// turn goes on, thinking, and watchers see the attempt. Nothing is emitted
// when no turn runs.
func (t *Turn) Retrying(r rpc.Retry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.busy {
		return
	}
	t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking, Retry: &r})
}

// WaitIdle waits until no turn runs, or ctx ends.
func (t *Turn) WaitIdle(ctx context.Context) {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// goIdleLocked marks the turn over and wakes WaitIdle.
func (t *Turn) goIdleLocked() {
	t.busy, t.interrupted = false, false
	if t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
}

// Abandon takes back a turn the CLI never got (writing it failed): the
// session goes idle without a terminal event, the caller reports the error.
func (t *Turn) Abandon() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.busy {
		return
	}
	t.goIdleLocked()
	t.stall.DisarmStall()
	t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
}

// Busy reports whether a turn runs.
func (t *Turn) Busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.busy
}

// Exited reports whether the process has exited.
func (t *Turn) Exited() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exited
}

// Interrupting marks the running turn as interrupted and reports whether
// one runs. The stall timer is armed again: a turn that waited for a
// person must now see the CLI act on the interrupt.
func (t *Turn) Interrupting() (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return false, runtimes.ErrExited
	}
	if !t.busy {
		return false, nil
	}
	t.interrupted = true
	t.stall.ArmStall()
	return true, nil
}

// Interrupted reports whether Interrupting was called during this turn.
func (t *Turn) Interrupted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.interrupted
}

// End ends the running turn with its terminal event (TurnCompleted or
// TurnFailed): its prompts are withdrawn, the session goes idle, then the
// terminal event. It reports false, emitting nothing, when no turn runs:
// a turn ends exactly once.
func (t *Turn) End(terminal runtimes.Event) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endLocked(terminal)
}

func (t *Turn) endLocked(terminal runtimes.Event) bool {
	if !t.busy {
		return false
	}
	t.goIdleLocked()
	t.stall.DisarmStall()
	t.cancelAllLocked()
	t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityIdle}, terminal)
	return true
}

// Exit records that the process ended with code: a running turn fails
// (cli_exited, with failure as its message), open prompts are withdrawn,
// and ProcessExited comes last. Later calls do nothing.
func (t *Turn) Exit(code int, reason, failure string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return
	}
	t.exited = true
	t.cancelAllLocked()
	t.endLocked(runtimes.TurnFailed{Code: runtimes.CodeCLIExited, Message: failure})
	if reason == "" {
		reason = "exited"
	}
	t.em.Emit(runtimes.ProcessExited{ExitCode: code, Reason: reason})
}

// Prompt records a prompt the CLI waits on, with data the adapter needs to
// answer it, and announces it. The stall timer stops meanwhile: waiting for
// a person is not a hang. A prompt whose id is already open is refused
// (false): clients could not tell the two apart.
func (t *Turn) Prompt(ev runtimes.PromptRequested, data any) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited || ev.RequestID == "" || t.indexLocked(ev.RequestID) >= 0 {
		return false
	}
	t.pending = append(t.pending, pendingPrompt{id: ev.RequestID, data: data})
	t.stall.DisarmStall()
	activity := rpc.ActivityPermission
	if ev.Question != nil {
		activity = rpc.ActivityQuestion
	}
	t.em.Emit(ev, runtimes.ActivityChanged{Activity: activity})
	return true
}

// Claim takes a pending prompt for answering and returns its data; while
// claimed, a second Claim of it fails. ErrNoRequest if it is not pending.
func (t *Turn) Claim(id string) (any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return nil, runtimes.ErrExited
	}
	i := t.indexLocked(id)
	if i < 0 || t.pending[i].answered {
		return nil, fmt.Errorf("request %q: %w", id, runtimes.ErrNoRequest)
	}
	t.pending[i].answered = true
	return t.pending[i].data, nil
}

// Unclaim gives a claimed prompt back (writing the answer failed).
func (t *Turn) Unclaim(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.indexLocked(id); i >= 0 {
		t.pending[i].answered = false
	}
}

// Answered removes a claimed prompt once its answer is on its way. When
// nothing else waits for the user, the turn goes back to thinking and the
// stall timer runs again.
func (t *Turn) Answered(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.indexLocked(id)
	if i < 0 {
		return // withdrawn meanwhile (the turn ended)
	}
	t.pending = append(t.pending[:i], t.pending[i+1:]...)
	if len(t.pending) == 0 && t.busy {
		t.stall.ArmStall()
		t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	}
}

// Answer answers pending prompt id: build turns the prompt's data and the
// user's answer into what the CLI is sent (its error leaves the prompt
// pending), and send sends it. The turn goes back to work before send, so
// that nothing the CLI does in reaction comes before it; send fails only
// when the process is gone, and its exit then ends the turn.
func (t *Turn) Answer(id string, build func(data any) (any, error), send func(msg any) error) error {
	data, err := t.Claim(id)
	if err != nil {
		return err
	}
	msg, err := build(data)
	if err != nil {
		t.Unclaim(id)
		return err
	}
	t.Answered(id)
	return send(msg)
}

// Cancel withdraws a prompt the CLI no longer waits on; false if it was
// not pending, or is being answered (CLIs that confirm an answer with a
// "resolved" notice send it for answered prompts too: that is no cancel).
func (t *Turn) Cancel(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.indexLocked(id)
	if i < 0 || t.pending[i].answered {
		return false
	}
	t.pending = append(t.pending[:i], t.pending[i+1:]...)
	t.em.Emit(runtimes.PromptCancelled{RequestID: id})
	// An interrupted turn is ending, not going back to work.
	if len(t.pending) == 0 && t.busy && !t.interrupted {
		t.stall.ArmStall()
		t.em.Emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	}
	return true
}

// cancelAllLocked withdraws the open prompts. One being answered is not
// withdrawn: its answer is on its way, and a cancel would contradict it.
func (t *Turn) cancelAllLocked() {
	for _, p := range t.pending {
		if !p.answered {
			t.em.Emit(runtimes.PromptCancelled{RequestID: p.id})
		}
	}
	t.pending = nil
}

func (t *Turn) indexLocked(id string) int {
	for i, p := range t.pending {
		if p.id == id {
			return i
		}
	}
	return -1
}
