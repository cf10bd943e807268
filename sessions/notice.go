package sessions

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// noticeDebounce coalesces the bursts of writes a CLI makes to a transcript
// during a turn into one session_updated per file: subscribers want to know
// that a session changed, not every line (messages come with watch).
const noticeDebounce = 300 * time.Millisecond

// notifier watches one workspace's transcript directories (one per runtime)
// while the workspace has subscribers, so that sessions run outside cdevd
// show up as session_updated events.
type notifier struct {
	e           *Engine
	workspaceID string
	w           *fsnotify.Watcher
	dirs        map[string]runtimes.Adapter // watched dir → its runtime
	// awaited are directories that do not exist yet (the runtime never ran
	// in this workspace): their parent is watched until they appear.
	awaited map[string]runtimes.Adapter
	done    chan struct{}
	wg      sync.WaitGroup
}

// startNotifier begins watching; nil when no runtime has a directory to watch.
func (e *Engine) startNotifier(workspaceID string) *notifier {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		e.log.Warn("cannot watch transcripts", zap.Error(err))
		return nil
	}
	n := &notifier{e: e, workspaceID: workspaceID, w: fw, dirs: map[string]runtimes.Adapter{},
		awaited: map[string]runtimes.Adapter{}, done: make(chan struct{})}
	for _, id := range e.reg.IDs() {
		a, _ := e.reg.Adapter(id)
		t := a.Transcripts()
		if t == nil {
			continue
		}
		dir := t.Dir(ws.Path)
		switch {
		case dir == "":
		case fw.Add(dir) == nil:
			n.dirs[dir] = a
		case fw.Add(filepath.Dir(dir)) == nil:
			n.awaited[dir] = a
		}
	}
	if len(n.dirs) == 0 && len(n.awaited) == 0 {
		fw.Close()
		return nil
	}
	n.wg.Add(1)
	go n.run()
	return n
}

func (n *notifier) run() {
	defer n.wg.Done()
	timers := map[string]*time.Timer{}
	fire := make(chan string, 64)
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	for {
		select {
		case <-n.done:
			return
		case ev, ok := <-n.w.Events:
			if !ok {
				return
			}
			if a, ok := n.awaited[ev.Name]; ok && ev.Has(fsnotify.Create) {
				n.appeared(ev.Name, a)
				continue
			}
			if !strings.HasSuffix(ev.Name, ".jsonl") || !ev.Has(fsnotify.Write|fsnotify.Create) {
				continue
			}
			if t, ok := timers[ev.Name]; ok {
				t.Reset(noticeDebounce)
				continue
			}
			name := ev.Name
			timers[name] = time.AfterFunc(noticeDebounce, func() {
				select {
				case fire <- name:
				case <-n.done:
				}
			})
		case name := <-fire:
			delete(timers, name)
			n.publish(name)
		case err, ok := <-n.w.Errors:
			if !ok {
				return
			}
			n.e.log.Debug("transcript watch", zap.Error(err))
		}
	}
}

// appeared starts watching an awaited directory, and announces the
// transcripts written to it before the watch began.
func (n *notifier) appeared(dir string, a runtimes.Adapter) {
	if err := n.w.Add(dir); err != nil {
		return
	}
	delete(n.awaited, dir)
	n.dirs[dir] = a
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		n.publish(f)
	}
}

// publish tells subscribers about the session whose transcript changed.
func (n *notifier) publish(path string) {
	a := n.dirs[filepath.Dir(path)]
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

func (n *notifier) stop() {
	close(n.done)
	n.w.Close()
	n.wg.Wait()
}
