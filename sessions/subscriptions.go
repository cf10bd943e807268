package sessions

// Workspace subscriptions: who hears of a workspace's sessions starting,
// ending and changing.

import (
	"errors"
	"sort"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
)

// Subscribe adds w to a workspace's lifecycle events and returns w's
// subscriptions. An empty id subscribes to every workspace. When a
// workspace's transcripts cannot be watched (the system refuses: a kernel
// limit) the call fails with the reason and subscribes w to nothing new: a
// success would promise notices that never come.
func (e *Engine) Subscribe(w Watcher, workspaceID string) ([]string, error) {
	ids := []string{workspaceID}
	if workspaceID == "" {
		ids = ids[:0]
		for _, ws := range e.ws.List() {
			ids = append(ids, ws.ID)
		}
	} else if _, err := e.ws.Get(workspaceID); err != nil {
		return nil, err
	}
	var added []string
	for _, id := range ids {
		e.subMu.Lock()
		if e.subs[id] == nil {
			e.subs[id] = map[Watcher]struct{}{}
		}
		if _, ok := e.subs[id][w]; !ok {
			added = append(added, id)
		}
		e.subs[id][w] = struct{}{}
		need := e.notifiers[id] == nil
		e.subMu.Unlock()
		if !need {
			continue
		}
		// Started outside subMu: it does file system work. A second
		// subscriber racing here may start one too; keep the first.
		n, err := e.startNotifier(id)
		if err != nil {
			for _, id := range added {
				e.unsubscribe(w, id)
			}
			e.log.Warn("workspace subscription refused", zap.String("workspace_id", id), zap.Error(err))
			return nil, watchRefused(err, "workspace_id", id)
		}
		if n != nil {
			e.subMu.Lock()
			if e.notifiers[id] == nil && len(e.subs[id]) > 0 {
				e.notifiers[id], n = n, nil
			}
			e.subMu.Unlock()
			if n != nil {
				n.stop()
			}
		}
	}
	return e.Subscriptions(w), nil
}

// watchRefused is the error a client gets when the system refuses a watch:
// the contract's InternalError (the server cannot do it now), with the
// reason (which kernel limit, how to raise it) in data.
func watchRefused(err error, key, id string) error {
	reason := err.Error()
	var ferr *fswatch.Error
	if errors.As(err, &ferr) {
		reason = ferr.Reason()
	}
	return &rpc.Error{Code: rpc.CodeInternalError, Message: "cannot watch transcripts: " + reason,
		Data: map[string]any{key: id, "reason": reason}}
}

// Unsubscribe removes w from a workspace's lifecycle events.
func (e *Engine) Unsubscribe(w Watcher, workspaceID string) ([]string, error) {
	if _, err := e.ws.Get(workspaceID); err != nil {
		return nil, err
	}
	e.unsubscribe(w, workspaceID)
	return e.Subscriptions(w), nil
}

// unsubscribe removes w; the workspace's transcript watcher ends with its
// last subscriber.
func (e *Engine) unsubscribe(w Watcher, workspaceID string) {
	e.subMu.Lock()
	delete(e.subs[workspaceID], w)
	var n *notifier
	if len(e.subs[workspaceID]) == 0 {
		n = e.notifiers[workspaceID]
		delete(e.notifiers, workspaceID)
	}
	e.subMu.Unlock()
	if n != nil {
		n.stop()
	}
}

// Subscriptions lists w's subscribed workspaces, sorted.
func (e *Engine) Subscriptions(w Watcher) []string {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	ids := []string{}
	for id, subs := range e.subs {
		if _, ok := subs[w]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// publishWorkspace sends a lifecycle event to the workspace's subscribers
// that do not already get it by watching the session.
func (e *Engine) publishWorkspace(ev *Event, watching map[Watcher]struct{}) {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	for w := range e.subs[ev.WorkspaceID] {
		if _, dup := watching[w]; !dup {
			w.Deliver(ev)
		}
	}
}
