package sessions

import (
	"context"
	"io"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// noticeDebounce coalesces the bursts of writes a CLI makes to a transcript
// during a turn into one session_updated per file: subscribers want to know
// that a session changed, not every line (messages come with watch).
const noticeDebounce = 300 * time.Millisecond

// notifier watches one workspace's stored sessions (through each
// runtime's Transcripts.Watch) while the workspace has subscribers, so that
// sessions run outside cdevd show up as session_updated events. Callbacks
// of different runtimes may run at once, so mu guards its state.
type notifier struct {
	e           *Engine
	workspaceID string

	mu      sync.Mutex
	watches []io.Closer
	timers  map[noticeKey]*time.Timer // debounce, by session
	stopped bool
	firing  sync.WaitGroup // publishes started by timers
}

type noticeKey struct {
	a  runtimes.Adapter
	id string
}

// startNotifier begins watching; nil when no runtime has anything to
// watch. A watch the system refuses (a kernel limit) is an error that says
// why: the subscriber must not believe it will hear of changes.
func (e *Engine) startNotifier(workspaceID string) (*notifier, error) {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return nil, nil
	}
	n := &notifier{e: e, workspaceID: workspaceID, timers: map[noticeKey]*time.Timer{}}
	for _, id := range e.reg.IDs() {
		a, _ := e.reg.Adapter(id)
		t := a.Transcripts()
		if t == nil {
			continue
		}
		w, err := t.Watch(ws.Path, func(id string) { n.changed(a, id) })
		if err != nil {
			n.stop()
			return nil, err
		}
		n.mu.Lock()
		n.watches = append(n.watches, w)
		n.mu.Unlock()
	}
	if hook := e.workspaceWatch.Load(); hook != nil {
		// The files' and repository's watch (workspace_events.go) lives
		// and ends with the transcripts'. One it cannot start is logged,
		// not refused: the session notices still come.
		w, err := (*hook)(ws.ID, ws.Path)
		if err != nil {
			e.log.Warn("cannot watch a workspace's files", zap.String("workspace_id", ws.ID), zap.Error(err))
		} else if w != nil {
			n.mu.Lock()
			n.watches = append(n.watches, w)
			n.mu.Unlock()
		}
	}
	if len(n.watches) == 0 {
		return nil, nil
	}
	return n, nil
}

// changed debounces one session's writes into one publish.
func (n *notifier) changed(a runtimes.Adapter, id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return
	}
	key := noticeKey{a, id}
	if t, ok := n.timers[key]; ok {
		t.Reset(noticeDebounce)
		return
	}
	n.timers[key] = time.AfterFunc(noticeDebounce, func() {
		n.mu.Lock()
		if n.stopped {
			n.mu.Unlock()
			return
		}
		delete(n.timers, key)
		n.firing.Add(1)
		n.mu.Unlock()
		defer n.firing.Done()
		n.publish(a, id)
	})
}

// publish tells subscribers about the session that changed.
func (n *notifier) publish(a runtimes.Adapter, id string) {
	ws, err := n.e.ws.Get(n.workspaceID)
	if err != nil {
		return
	}
	list, err := a.Transcripts().List(context.Background(), ws.Path)
	if err != nil {
		n.e.log.Debug("list for session_updated", zap.Error(err))
		return
	}
	for _, s := range list {
		if s.SessionID != id {
			continue
		}
		ev := &Event{Type: rpc.EventSessionUpdated, SessionID: id, WorkspaceID: ws.ID, At: time.Now(),
			Frame: notification(rpc.EventPrefix+rpc.EventSessionUpdated, rpc.SessionUpdatedEvent{
				SessionID: id, WorkspaceID: ws.ID, AgentType: a.Info().ID, Summary: s.Summary,
				MessageCount: s.MessageCount, LastUpdated: s.LastUpdated,
				Timestamp: rpc.FormatTime(time.Now())})}
		n.e.publishWorkspace(ev, nil)
		return
	}
}

// stop ends the watches and returns once no callback or publish runs.
func (n *notifier) stop() {
	n.mu.Lock()
	n.stopped = true
	for _, t := range n.timers {
		t.Stop()
	}
	watches := n.watches
	n.watches = nil
	n.mu.Unlock()
	for _, w := range watches {
		w.Close()
	}
	n.firing.Wait()
}
