package turns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The private object stores grow with every snapshot; Prune takes back
// what no kept record needs. The rule:
//
//   - a session's records expire when its record file was last written
//     (its last turn, or revert) more than KeepFor ago: the file goes;
//   - from each private store, every loose object that no kept record's
//     snapshot (Before or After) reaches is removed, unless it was written
//     or reused (git freshens an object it finds already there) within
//     Grace: a snapshot under way, whose record is not written yet, keeps
//     what it made;
//   - a store whose repository is gone (or is no longer one) keeps nothing
//     it can be asked for, and is emptied by the same rule.

// PruneConfig says what Prune keeps.
type PruneConfig struct {
	// KeepFor is how long a session's records are kept after its last
	// turn; default 30 days.
	KeepFor time.Duration
	// Grace spares objects written this recently; default 1 hour.
	Grace time.Duration
}

// PruneResult says what Prune removed.
type PruneResult struct {
	Sessions int // record files expired
	Objects  int // objects removed from the private stores
	Kept     int // objects kept (reachable, or within the grace)
}

// Prune expires old records from st and removes the objects no kept
// record reaches from the private stores.
func (s *Snapshotter) Prune(ctx context.Context, st *Store, cfg PruneConfig) (PruneResult, error) {
	if cfg.KeepFor <= 0 {
		cfg.KeepFor = 30 * 24 * time.Hour
	}
	if cfg.Grace <= 0 {
		cfg.Grace = time.Hour
	}
	var res PruneResult
	expired, kept, err := st.expire(time.Now().Add(-cfg.KeepFor))
	res.Sessions = expired
	if err != nil {
		return res, err
	}
	// The trees each store must keep, by store name.
	roots := map[string][]string{}
	dirs := map[string]string{}
	for _, rec := range kept {
		name := storeName(rec.Dir)
		roots[name] = append(roots[name], rec.Before, rec.After)
		dirs[name] = rec.Dir
	}
	stores, err := os.ReadDir(filepath.Join(s.cfg.Home, "objects"))
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	cutoff := time.Now().Add(-cfg.Grace)
	for _, e := range stores {
		if !e.IsDir() {
			continue
		}
		reach := map[string]bool{}
		if dir, ok := dirs[e.Name()]; ok {
			if reach, err = s.reachable(ctx, dir, roots[e.Name()]); err != nil {
				// Unsure what is needed: keep everything of this store.
				continue
			}
		}
		removed, spared, err := s.sweepStore(e.Name(), reach, cutoff)
		res.Objects += removed
		res.Kept += spared
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// sweepStore sweeps one private store while no snapshot of its repository
// runs. The private index and the last snapshot may name objects the
// sweep removed: once it removed any, both are forgotten (the next
// snapshot makes the index again from the user's).
func (s *Snapshotter) sweepStore(name string, reach map[string]bool, cutoff time.Time) (int, int, error) {
	s.mu.Lock()
	var st *repoState
	for root, rs := range s.repos {
		if storeName(root) == name {
			st = rs
		}
	}
	s.mu.Unlock()
	if st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	removed, kept, err := sweep(filepath.Join(s.cfg.Home, "objects", name), reach, cutoff)
	if removed > 0 {
		if st != nil {
			st.last, st.indexCurrent = "", false
		}
		if rmErr := os.Remove(filepath.Join(s.cfg.Home, "index", name)); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			err = errors.Join(err, rmErr)
		}
	}
	return removed, kept, err
}

// storeName is the private store's folder name of the repository at root
// (see Open).
func storeName(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// reachable lists every object the trees reach, through the repository's
// objects and its private store. A repository that is gone reaches
// nothing; one that fails otherwise is an error (its store is left alone).
func (s *Snapshotter) reachable(ctx context.Context, dir string, trees []string) (map[string]bool, error) {
	r, err := s.Open(ctx, dir)
	if errors.Is(err, ErrNotRepo) || errors.Is(err, fs.ErrNotExist) || (err != nil && !exists(dir)) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Root != dir {
		// The folder now belongs to another repository (an enclosing
		// one): this store's snapshots cannot be read through it.
		return map[string]bool{}, nil
	}
	args := append([]string{"rev-list", "--objects", "--no-walk"}, dedupe(trees)...)
	out, err := s.git(ctx, r.Root, r.readEnv(), args...)
	if err != nil {
		return nil, err
	}
	reach := map[string]bool{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		if id, _, _ := strings.Cut(string(line), " "); id != "" {
			reach[id] = true
		}
	}
	return reach, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// sweep removes the loose objects of store that reach does not hold and
// that are older than cutoff, and the folders it empties.
func sweep(store string, reach map[string]bool, cutoff time.Time) (removed, kept int, err error) {
	fans, err := os.ReadDir(store)
	if err != nil {
		return 0, 0, err
	}
	for _, fan := range fans {
		if !fan.IsDir() || len(fan.Name()) != 2 {
			continue // info/, pack/: snapshots write loose objects only
		}
		fanDir := filepath.Join(store, fan.Name())
		objs, err := os.ReadDir(fanDir)
		if err != nil {
			return removed, kept, err
		}
		left := len(objs)
		for _, o := range objs {
			info, err := o.Info()
			if err != nil || reach[fan.Name()+o.Name()] || info.ModTime().After(cutoff) {
				kept++
				continue
			}
			if err := os.Remove(filepath.Join(fanDir, o.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, kept, err
			}
			removed++
			left--
		}
		if left == 0 {
			_ = os.Remove(fanDir) // only if still empty
		}
	}
	return removed, kept, nil
}
