package sessions

// A session's follow-up queue as data: its items, its pause, the ids that
// already ran, and its file under $CDEVD_HOME/queues (queue.go drives it).

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

const (
	// maxQueue bounds a session's queue: a phone that loops on send must
	// not grow a file and a state without end.
	maxQueue = 100
	// maxRan is how many started items a queue remembers, to tell an edit
	// of one that ran from an edit of one that never was.
	maxRan = 64
)

// queue is one session's follow-up queue. Its mu is a leaf: taken under
// session.mu (a live session's queue changes and its queue_changed event
// are one step), never the other way.
type queue struct {
	path string // its file; "" keeps it in memory only

	mu          sync.Mutex
	sessionID   string
	workspaceID string
	agentType   string
	items       []rpc.QueueItem
	paused      bool
	reason      rpc.QueuePause
	message     string
	ran         []string

	// saveMu orders writes: each takes the state as it is when its turn
	// comes, so the last write holds the last state.
	saveMu sync.Mutex
}

// queueFile is a queue on disk.
type queueFile struct {
	SessionID    string          `json:"session_id"`
	WorkspaceID  string          `json:"workspace_id"`
	AgentType    string          `json:"agent_type"`
	Items        []rpc.QueueItem `json:"items"`
	Paused       bool            `json:"paused"`
	PauseReason  rpc.QueuePause  `json:"pause_reason,omitempty"`
	PauseMessage string          `json:"pause_message,omitempty"`
}

// snapshotLocked is the queue on the wire.
func (q *queue) snapshotLocked() rpc.Queue {
	items := slices.Clone(q.items)
	if items == nil {
		items = []rpc.QueueItem{} // never null on the wire
	}
	return rpc.Queue{Items: items, Paused: q.paused, PauseReason: q.reason, PauseMessage: q.message}
}

func (q *queue) snapshot() rpc.Queue {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.snapshotLocked()
}

// addLocked appends a prompt and returns it with its place (from 1).
func (q *queue) addLocked(prompt, by string, atts []rpc.QueuedAttachment) (rpc.QueueItem, int, error) {
	if len(q.items) >= maxQueue {
		return rpc.QueueItem{}, 0, rpc.SessionBusy(q.sessionID, "the queue is full (100 prompts): wait, or remove some")
	}
	it := rpc.QueueItem{QueueID: uuid.NewString(), Prompt: prompt, QueuedAt: rpc.FormatTime(time.Now()), QueuedBy: by,
		Attachments: atts}
	q.items = append(q.items, it)
	return it, len(q.items), nil
}

// indexLocked finds an item, or says why it is not there.
func (q *queue) indexLocked(id string) (int, error) {
	for i, it := range q.items {
		if it.QueueID == id {
			return i, nil
		}
	}
	return -1, rpc.QueueItemGone(q.sessionID, id, slices.Contains(q.ran, id))
}

// popLocked takes the next item to run, unless the queue is paused or
// empty, and remembers it ran.
func (q *queue) popLocked() (rpc.QueueItem, bool) {
	if q.paused || len(q.items) == 0 {
		return rpc.QueueItem{}, false
	}
	it := q.items[0]
	q.items = q.items[1:]
	q.ran = append(q.ran, it.QueueID)
	if len(q.ran) > maxRan {
		q.ran = q.ran[len(q.ran)-maxRan:]
	}
	return it, true
}

// unpopLocked puts back an item whose turn could not start.
func (q *queue) unpopLocked(it rpc.QueueItem) {
	q.items = append([]rpc.QueueItem{it}, q.items...)
	if i := slices.Index(q.ran, it.QueueID); i >= 0 {
		q.ran = slices.Delete(q.ran, i, i+1)
	}
}

// pauseLocked stops the queue from draining; only a queue that holds
// prompts pauses (an empty one has nothing to hold back). It reports
// whether anything changed.
func (q *queue) pauseLocked(reason rpc.QueuePause, message string) bool {
	if len(q.items) == 0 || (q.paused && q.reason == reason && q.message == message) {
		return false
	}
	q.paused, q.reason, q.message = true, reason, message
	return true
}

// unpauseLocked lets the queue drain again; false if it was not paused.
func (q *queue) unpauseLocked() bool {
	if !q.paused {
		return false
	}
	q.paused, q.reason, q.message = false, "", ""
	return true
}

// pendingLocked reports items that will run on their own: a send must
// wait behind them.
func (q *queue) pendingLocked() bool { return !q.paused && len(q.items) > 0 }

// save writes the queue's file (0600, atomically), or removes it once the
// queue is empty. Never called with a session's lock held.
func (q *queue) save(log *zap.Logger) {
	if q.path == "" {
		return
	}
	q.saveMu.Lock()
	defer q.saveMu.Unlock()
	q.mu.Lock()
	f := queueFile{SessionID: q.sessionID, WorkspaceID: q.workspaceID, AgentType: q.agentType,
		Items: slices.Clone(q.items), Paused: q.paused, PauseReason: q.reason, PauseMessage: q.message}
	q.mu.Unlock()
	var err error
	if len(f.Items) == 0 {
		if err = os.Remove(q.path); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	} else {
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = workspaces.WriteFileAtomic(q.path, b, 0o600)
		}
	}
	if err != nil {
		log.Warn("queue not saved", zap.String("session", f.SessionID), zap.Error(err))
	}
}

// loadQueues reads every queue kept in dir. A queue of the last run holds
// prompts that were waiting when cdevd stopped: it comes back paused
// ("restarted"), since nothing should run on its own after a restart.
func loadQueues(dir string, log *zap.Logger) map[string]*queue {
	out := map[string]*queue{}
	if dir == "" {
		return out
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Warn("queues not read", zap.Error(err))
		}
		return out
	}
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !e.Type().IsRegular() || runtimes.ValidSessionID(id) != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		var f queueFile
		if err == nil {
			err = json.Unmarshal(b, &f)
		}
		if err != nil || f.SessionID != id || len(f.Items) == 0 {
			log.Warn("queue file ignored", zap.String("file", name), zap.Error(err))
			continue
		}
		q := &queue{path: filepath.Join(dir, name), sessionID: id, workspaceID: f.WorkspaceID,
			agentType: f.AgentType, items: f.Items, paused: true, reason: rpc.PauseRestarted}
		out[id] = q
	}
	return out
}
