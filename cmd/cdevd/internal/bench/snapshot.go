package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cdevd/cdevd/workspaces/turns"
)

// snapshot: what a turn's snapshot costs in the generated repository when
// git must read the tree (no reuse: the Snapshotter here has no watch), as
// the engine takes it (turns.Snapshotter: Open, then Snapshot: `git add -A`
// and `git write-tree` with the private index it keeps per repository,
// into a private object store), against the same snapshot made by git
// commands alone (add -A, write-tree, with an index of their own kept the
// same way, first copied from the user's, and the same kind of store),
// taking turns.
//
// Unlike the other figures it runs in the bench process: no method makes
// a snapshot on demand (the engine takes them around turns), and a
// scripted turn's time would be mostly the runtime's. It is the daemon's
// code with the daemon's configuration; each side has its own private
// store and index, warmed by one untimed snapshot (the first hashes the
// changed files, which later ones find in the index).
func (b *Bench) snapshot(ctx context.Context) (sample, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return sample{}, err
	}
	r.c.close() // measured in this process
	home := b.path("snapshots")
	snapper := turns.New(turns.Config{Home: filepath.Join(home, "cdevd"), Env: []string{"HOME=" + b.path("home")}})
	viaCdevd := func() (time.Duration, error) {
		began := time.Now()
		repo, err := snapper.Open(ctx, r.dir)
		if err != nil {
			return 0, err
		}
		_, err = repo.Snapshot(ctx)
		return time.Since(began), err
	}
	private := filepath.Join(home, "git")
	if err := os.MkdirAll(private, 0o700); err != nil {
		return sample{}, err
	}
	objects := filepath.Join(r.dir, ".git", "objects")
	byGit := func() (time.Duration, error) {
		began := time.Now()
		index := filepath.Join(home, "git-index")
		if _, err := os.Stat(index); err != nil {
			content, err := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
			if err != nil {
				return 0, err
			}
			if err := os.WriteFile(index, content, 0o600); err != nil {
				return 0, err
			}
		}
		env := append(r.env, "GIT_INDEX_FILE="+index, "GIT_OBJECT_DIRECTORY="+private,
			"GIT_ALTERNATE_OBJECT_DIRECTORIES="+objects, "GIT_OPTIONAL_LOCKS=0")
		for _, args := range [][]string{{"add", "-A", "--", "."}, {"write-tree"}} {
			if _, err := (&repoFixture{dir: r.dir, env: env}).git(args...); err != nil {
				return 0, err
			}
		}
		return time.Since(began), nil
	}
	var cd, gd []time.Duration
	for i := range 1 + b.sz.repoCalls {
		first, second := viaCdevd, byGit
		if i%2 == 1 {
			first, second = second, first
		}
		d1, err := first()
		if err != nil {
			return sample{}, err
		}
		d2, err := second()
		if err != nil {
			return sample{}, err
		}
		if i == 0 {
			continue // the warm-up
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		cd, gd = append(cd, d1), append(gd, d2)
	}
	return sample{value: percentile(cd, 0.5).Seconds(), base: percentile(gd, 0.5).Seconds()}, nil
}

// commas writes n with thousands separators, as the figures do.
func commas(n int) string {
	digits := strconv.Itoa(n)
	var out []byte
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, digits[i])
	}
	return string(out)
}
