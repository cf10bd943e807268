package sessions

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// noticeDebounce coalesces the bursts of writes a CLI makes to a transcript
// during a turn into one session_updated per file: subscribers want to know
// that a session changed, not every line (messages come with watch).
const noticeDebounce = 300 * time.Millisecond

// notifier watches one workspace's transcript directories (one per runtime)
// while the workspace has subscribers, so that sessions run outside cdevd
// show up as session_updated events. Its watches go through the daemon's
// one fswatch.Watcher; callbacks of different directories may run at once,
// so mu guards its state.
type notifier struct {
	e           *Engine
	workspaceID string

	mu      sync.Mutex
	handles []*fswatch.Handle
	dirs    map[string]runtimes.Adapter // watched dir → its runtime
	// awaited are directories that do not exist yet (the runtime never ran
	// in this workspace): their parent is watched until they appear.
	awaited map[string]runtimes.Adapter
	timers  map[string]*time.Timer // debounce, by transcript path
	stopped bool
	firing  sync.WaitGroup // publishes started by timers
}

// startNotifier begins watching; nil when no runtime has a directory to
// watch. A watch the system refuses (a kernel limit) is an error that says
// why: the subscriber must not believe it will hear of changes.
func (e *Engine) startNotifier(workspaceID string) (*notifier, error) {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return nil, nil
	}
	n := &notifier{e: e, workspaceID: workspaceID, dirs: map[string]runtimes.Adapter{},
		awaited: map[string]runtimes.Adapter{}, timers: map[string]*time.Timer{}}
	for _, id := range e.reg.IDs() {
		a, _ := e.reg.Adapter(id)
		t := a.Transcripts()
		if t == nil {
			continue
		}
		dir := t.Dir(ws.Path)
		if dir == "" {
			continue
		}
		err := n.watch(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if err = n.watch(filepath.Dir(dir)); err == nil {
				n.mu.Lock()
				n.awaited[dir] = a
				n.mu.Unlock()
				continue
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue // nothing to watch: the runtime's root is missing too
			}
		}
		if err != nil {
			n.stop()
			return nil, err
		}
		n.mu.Lock()
		n.dirs[dir] = a
		n.mu.Unlock()
	}
	n.mu.Lock()
	watching := len(n.handles) > 0 // callbacks may add to it meanwhile
	n.mu.Unlock()
	if !watching {
		return nil, nil
	}
	return n, nil
}

func (n *notifier) watch(dir string) error {
	h, err := n.e.watcher.Watch(dir, n.onEvent, n.onError)
	if err != nil {
		return err
	}
	n.mu.Lock()
	if n.stopped { // an awaited directory appeared as the notifier stopped
		n.mu.Unlock()
		h.Close()
		return errors.New("notifier stopped")
	}
	n.handles = append(n.handles, h)
	n.mu.Unlock()
	return nil
}

func (n *notifier) onEvent(ev fswatch.Event) {
	n.mu.Lock()
	if a, ok := n.awaited[ev.Name]; ok && !n.stopped && ev.Has(fswatch.Create) {
		n.mu.Unlock()
		n.appeared(ev.Name, a)
		return
	}
	defer n.mu.Unlock()
	if n.stopped || !strings.HasSuffix(ev.Name, ".jsonl") || !ev.Has(fswatch.Write|fswatch.Create) {
		return
	}
	if n.dirs[filepath.Dir(ev.Name)] == nil {
		return // a sibling of an awaited directory
	}
	if t, ok := n.timers[ev.Name]; ok {
		t.Reset(noticeDebounce)
		return
	}
	name := ev.Name
	n.timers[name] = time.AfterFunc(noticeDebounce, func() {
		n.mu.Lock()
		if n.stopped {
			n.mu.Unlock()
			return
		}
		delete(n.timers, name)
		n.firing.Add(1)
		n.mu.Unlock()
		defer n.firing.Done()
		n.publish(name)
	})
}

func (n *notifier) onError(err error) {
	n.e.log.Debug("transcript watch", zap.Error(err))
}

// appeared starts watching an awaited directory, and announces the
// transcripts written to it before the watch began.
func (n *notifier) appeared(dir string, a runtimes.Adapter) {
	if err := n.watch(dir); err != nil {
		n.e.log.Warn("cannot watch a new transcript directory", zap.String("dir", dir), zap.Error(err))
		return
	}
	n.mu.Lock()
	delete(n.awaited, dir)
	n.dirs[dir] = a
	n.mu.Unlock()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		n.publish(f)
	}
}

// publish tells subscribers about the session whose transcript changed.
func (n *notifier) publish(path string) {
	n.mu.Lock()
	a := n.dirs[filepath.Dir(path)]
	n.mu.Unlock()
	if a == nil {
		return
	}
	ws, err := n.e.ws.Get(n.workspaceID)
	if err != nil {
		return
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	list, err := a.Transcripts().List(context.Background(), ws.Path)
	if err != nil {
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
				Timestamp: time.Now().UTC().Format(time.RFC3339Nano)})}
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
	handles := n.handles
	n.handles = nil
	n.mu.Unlock()
	for _, h := range handles {
		h.Close()
	}
	n.firing.Wait()
}
