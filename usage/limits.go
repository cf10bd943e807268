// Package usage keeps what cdevd knows of its users' consumption: the plan's
// rate-limit windows each runtime's CLI reports (Limits), and tokens per day
// summed from the stored transcripts (Summarize).
package usage

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// Limits is every runtime's last known rate-limit windows. The CLIs report
// them only with a model call, so they are kept in a file: after a restart
// a client still sees the last figures, with the time they were reported.
//
// Observe is called by the engine under a session's lock: its mutex is a
// leaf, and the file is written by a goroutine of its own.
type Limits struct {
	file string
	log  *zap.Logger

	mu       sync.Mutex
	runtimes map[string][]rpc.RateLimitWindow // agent type → windows, by id

	dirty  chan struct{}
	done   chan struct{}
	closed sync.Once
	wg     sync.WaitGroup
}

// OpenLimits loads file (if it exists) and keeps it current until Close;
// an empty file keeps the limits in memory only.
func OpenLimits(file string, log *zap.Logger) *Limits {
	if log == nil {
		log = zap.NewNop()
	}
	l := &Limits{file: file, log: log, runtimes: map[string][]rpc.RateLimitWindow{},
		dirty: make(chan struct{}, 1), done: make(chan struct{})}
	if file != "" {
		l.load()
	}
	l.wg.Go(l.saveLoop)
	return l
}

// Close writes what is left to write and stops the writer.
func (l *Limits) Close() {
	l.closed.Do(func() { close(l.done) })
	l.wg.Wait()
}

// Observe merges windows a CLI of agentType reported at time at into what
// is known (by window id; a field the report leaves out keeps its value, as
// both CLIs send sparse updates). It returns the runtime's windows after the
// merge, and whether anything but the report's time changed.
func (l *Limits) Observe(agentType string, windows []rpc.RateLimitWindow, at time.Time) ([]rpc.RateLimitWindow, bool) {
	stamp := rpc.FormatTime(at)
	l.mu.Lock()
	defer l.mu.Unlock()
	known := slices.Clone(l.runtimes[agentType])
	changed := false
	for _, w := range windows {
		if w.ID == "" {
			continue
		}
		i := slices.IndexFunc(known, func(k rpc.RateLimitWindow) bool { return k.ID == w.ID })
		if i < 0 {
			w.UpdatedAt = stamp
			known = append(known, w)
			changed = true
			continue
		}
		merged := merge(known[i], w)
		merged.UpdatedAt = known[i].UpdatedAt
		if !sameWindow(merged, known[i]) {
			changed = true
		}
		merged.UpdatedAt = stamp
		known[i] = merged
	}
	sort.SliceStable(known, func(i, j int) bool { return known[i].ID < known[j].ID })
	l.runtimes[agentType] = known
	select {
	case l.dirty <- struct{}{}:
	default:
	}
	return slices.Clone(known), changed
}

// Read returns the known limits of agentType, or of every runtime when it
// is empty, ordered by runtime.
func (l *Limits) Read(agentType string) []rpc.RuntimeLimits {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []rpc.RuntimeLimits{}
	for id, ws := range l.runtimes {
		if agentType != "" && id != agentType {
			continue
		}
		out = append(out, rpc.RuntimeLimits{AgentType: id, Windows: slices.Clone(ws)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AgentType < out[j].AgentType })
	return out
}

// merge is k updated with what w says.
func merge(k, w rpc.RateLimitWindow) rpc.RateLimitWindow {
	if w.UsedPercent != nil {
		k.UsedPercent = w.UsedPercent
	}
	if w.WindowMinutes != 0 {
		k.WindowMinutes = w.WindowMinutes
	}
	if w.ResetsAt != "" {
		if w.ResetsAt != k.ResetsAt && w.UsedPercent == nil {
			// A new window began: the old figure says nothing of it.
			k.UsedPercent = nil
		}
		k.ResetsAt = w.ResetsAt
	}
	if w.Status != "" {
		k.Status = w.Status
	}
	return k
}

func sameWindow(a, b rpc.RateLimitWindow) bool {
	pa, pb := a.UsedPercent, b.UsedPercent
	a.UsedPercent, b.UsedPercent = nil, nil
	if a != b {
		return false
	}
	if pa == nil || pb == nil {
		return pa == pb
	}
	return *pa == *pb
}

// stored is the file's content.
type stored struct {
	Runtimes map[string][]rpc.RateLimitWindow `json:"runtimes"`
}

func (l *Limits) load() {
	b, err := os.ReadFile(l.file)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	var s stored
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		// Figures that will come again with the next model call: not worth
		// refusing to start over.
		l.log.Warn("usage: ignored an unreadable limits file", zap.String("file", l.file), zap.Error(err))
		return
	}
	for id, ws := range s.Runtimes {
		if id != "" {
			l.runtimes[id] = ws
		}
	}
}

func (l *Limits) saveLoop() {
	for {
		select {
		case <-l.dirty:
			l.save()
		case <-l.done:
			select {
			case <-l.dirty:
				l.save()
			default:
			}
			return
		}
	}
}

func (l *Limits) save() {
	if l.file == "" {
		return
	}
	l.mu.Lock()
	b, err := json.Marshal(stored{Runtimes: l.runtimes})
	l.mu.Unlock()
	if err == nil {
		err = workspaces.WriteFileAtomic(l.file, b, 0o600)
	}
	if err != nil {
		l.log.Warn("usage: could not save the limits", zap.String("file", l.file), zap.Error(err))
	}
}
