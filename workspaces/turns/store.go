package turns

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Record is one turn's snapshots, kept so that its diff can be shown and
// the turn reverted after the daemon restarts.
type Record struct {
	Turn int `json:"turn"`
	// Dir is the workspace folder the turn ran in, so that a turn can be
	// shown and reverted when its session no longer runs.
	Dir    string `json:"dir"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Reverts is the turn this record undid (0 for an agent's turn): a
	// revert is itself a change, and can be reverted.
	Reverts int `json:"reverts,omitempty"`
}

// Store keeps each session's records in a file of its own under dir,
// written atomically with mode 0600.
type Store struct {
	dir string
	mu  sync.Mutex
	// changed counts each session's records that changed files, read from
	// every file on the first Changed and kept up to date by Add: history
	// asks for it on every call.
	changed map[string]int
}

// NewStore makes a store in dir ($CDEVD_HOME/turns/sessions).
func NewStore(dir string) *Store { return &Store{dir: dir} }

// sessionName is what a session id may be to name a file.
var sessionName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ErrBadSession is a session id that cannot name a record file.
var ErrBadSession = errors.New("invalid session id")

func (s *Store) path(session string) (string, error) {
	if !sessionName.MatchString(session) {
		return "", ErrBadSession
	}
	return filepath.Join(s.dir, session+".json"), nil
}

// List returns a session's records, oldest first (none for a session
// without any).
func (s *Store) List(session string) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listLocked(session)
}

func (s *Store) listLocked(session string) ([]Record, error) {
	p, err := s.path(session)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return []Record{}, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Record
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, err
	}
	return recs, nil
}

// Get returns one turn's record; false if there is none.
func (s *Store) Get(session string, turn int) (Record, bool, error) {
	recs, err := s.List(session)
	if err != nil {
		return Record{}, false, err
	}
	for _, r := range recs {
		if r.Turn == turn {
			return r, true, nil
		}
	}
	return Record{}, false, nil
}

// Add appends a record. A record whose Turn is 0 is numbered after the
// last one (a revert, which is not an agent's turn); the number used is
// returned.
func (s *Store) Add(session string, rec Record) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.listLocked(session)
	if err != nil {
		return 0, err
	}
	if rec.Turn == 0 {
		rec.Turn = 1
		if n := len(recs); n > 0 {
			rec.Turn = recs[n-1].Turn + 1
		}
	}
	recs = append(recs, rec)
	b, err := json.Marshal(recs)
	if err != nil {
		return 0, err
	}
	p, _ := s.path(session)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(s.dir, ".turns-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return 0, err
	}
	if s.changed != nil && rec.Before != rec.After {
		s.changed[session]++
	}
	return rec.Turn, nil
}

// Changed is how many of a session's records changed files (the turns
// session/turns lists).
func (s *Store) Changed(session string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = map[string]int{}
		entries, _ := os.ReadDir(s.dir) // none yet: every count is 0
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !sessionName.MatchString(id) {
				continue
			}
			recs, err := s.listLocked(id)
			if err != nil {
				continue
			}
			for _, r := range recs {
				if r.Before != r.After {
					s.changed[id]++
				}
			}
		}
	}
	return s.changed[session]
}

// expire removes the record files last written before cutoff and returns
// how many went, and the records of every session kept.
func (s *Store) expire(cutoff time.Time) (int, []Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	s.changed = nil // counted again on the next Changed
	expired := 0
	var kept []Record
	for _, e := range entries {
		session, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !sessionName.MatchString(session) {
			continue // a temporary file of a write under way, or not ours
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if info.ModTime().Before(cutoff) {
			if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return expired, kept, err
			}
			expired++
			continue
		}
		recs, err := s.listLocked(session)
		if err != nil {
			// An unreadable record file keeps nothing alive; it is left for
			// its reader to report.
			continue
		}
		kept = append(kept, recs...)
	}
	return expired, kept, nil
}
