package notify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// SinkStatus is how a sink has fared, kept in a file for `cdevd doctor`: a
// channel that fails silently for weeks is what it guards against.
type SinkStatus struct {
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastFailure time.Time `json:"last_failure,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
}

// StatusFileName is the status file's name inside $CDEVD_HOME.
const StatusFileName = "notify-status.json"

// statusBook records each sink's last success and failure, and writes them
// to its file when a failure happens or ends (not for every success).
type statusBook struct {
	path string
	log  *zap.Logger

	mu    sync.Mutex
	sinks map[string]*SinkStatus
}

func newStatusBook(path string, log *zap.Logger) *statusBook {
	return &statusBook{path: path, log: log, sinks: map[string]*SinkStatus{}}
}

func (b *statusBook) entry(s Sink) *SinkStatus {
	e, ok := b.sinks[s.Name()]
	if !ok {
		e = &SinkStatus{Name: s.Name(), Type: s.Type()}
		b.sinks[s.Name()] = e
	}
	return e
}

func (b *statusBook) succeeded(s Sink) {
	b.mu.Lock()
	e := b.entry(s)
	recovered := e.LastFailure.After(e.LastSuccess)
	e.LastSuccess = time.Now().UTC()
	b.mu.Unlock()
	if recovered {
		b.save()
	}
}

func (b *statusBook) failed(s Sink, err error) {
	b.mu.Lock()
	e := b.entry(s)
	e.LastFailure, e.LastError = time.Now().UTC(), err.Error()
	b.mu.Unlock()
	b.save()
}

// Snapshot is every sink's status, by name.
func (b *statusBook) snapshot() []SinkStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]SinkStatus, 0, len(b.sinks))
	for _, e := range b.sinks {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, c SinkStatus) int {
		if a.Name < c.Name {
			return -1
		}
		if a.Name > c.Name {
			return 1
		}
		return 0
	})
	return out
}

// save writes the file atomically, private to the user: an error message
// may name a URL.
func (b *statusBook) save() {
	if b.path == "" {
		return
	}
	data, err := json.MarshalIndent(b.snapshot(), "", "  ")
	if err == nil {
		err = writeFileAtomic(b.path, data)
	}
	if err != nil {
		b.log.Warn("notify status not saved", zap.Error(err))
	}
}

// ReadStatus reads the status file in home; a missing file is no status.
func ReadStatus(home string) ([]SinkStatus, error) {
	data, err := os.ReadFile(filepath.Join(home, StatusFileName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SinkStatus
	return out, json.Unmarshal(data, &out)
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".notify-status-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
