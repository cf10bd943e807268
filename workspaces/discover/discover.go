// Package discover finds git repositories a user might add as workspaces
// (workspace/discover, the iOS app's "add a repository" list): it scans
// the folders given, or the usual ones (~/Projects, ~/Code, ~/src…), a few
// levels deep and for a bounded time, and caches what it found, so that the
// app's next open answers at once while a refresh runs in the background.
package discover

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Bounds of one scan.
const (
	maxDepth = 4                // below a root: ~/Code/org/team/repo
	maxDirs  = 50_000           // directories read per scan
	maxTime  = 10 * time.Second // per scan
	// cacheFor: a cached answer older than this is refreshed in the
	// background when asked for.
	cacheFor = 5 * time.Minute
)

// DefaultRoots are the folders scanned when a client names none, relative
// to the home directory; those that do not exist are skipped.
var DefaultRoots = []string{"Projects", "projects", "Code", "code", "src", "dev", "Developer", "repos", "git", "work"}

// Repo is one repository found.
type Repo struct {
	Name         string
	Path         string
	RemoteURL    string // origin's, credentials removed
	LastModified time.Time
}

// Scan is one scan's answer.
type Scan struct {
	Repos   []Repo
	Scanned []string // roots scanned
	Skipped []string // roots that do not exist or cannot be read
	At      time.Time
	Took    time.Duration
}

// Finder scans and caches by the set of roots.
type Finder struct {
	home string

	mu      sync.Mutex
	cache   map[string]*entry
	closed  bool
	running sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

type entry struct {
	scan       *Scan
	refreshing bool
}

// New creates a Finder; home is where the default roots are ("" for the
// user's home directory).
func New(home string) *Finder {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Finder{home: home, cache: map[string]*entry{}, ctx: ctx, cancel: cancel}
}

// Close stops a background refresh and waits for it.
func (f *Finder) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.cancel()
	f.running.Wait()
}

// Roots is the roots to scan: roots ("~" expanded; each must be absolute),
// or the defaults. ok is false, with the offending root, for a relative one.
func (f *Finder) Roots(roots []string) (out []string, bad string) {
	if len(roots) == 0 {
		for _, r := range DefaultRoots {
			out = append(out, filepath.Join(f.home, r))
		}
		return out, ""
	}
	for _, r := range roots {
		if r == "~" || strings.HasPrefix(r, "~/") {
			r = filepath.Join(f.home, r[1:])
		}
		if !filepath.IsAbs(r) {
			return nil, r
		}
		out = append(out, filepath.Clean(r))
	}
	slices.Sort(out)
	return slices.Compact(out), ""
}

// Find answers for roots: the cached scan when there is one (refreshing it
// in the background when fresh is asked or it is old; refreshing reports
// that), else a scan now.
func (f *Finder) Find(ctx context.Context, roots []string, fresh bool) (scan *Scan, cached, refreshing bool) {
	key := strings.Join(roots, "\x00")
	f.mu.Lock()
	e := f.cache[key]
	if e != nil && e.scan != nil {
		if (fresh || time.Since(e.scan.At) > cacheFor) && !e.refreshing && !f.closed {
			e.refreshing = true
			f.running.Add(1)
			go f.refresh(key, roots)
		}
		scan, refreshing = e.scan, e.refreshing
		f.mu.Unlock()
		return scan, true, refreshing
	}
	f.mu.Unlock()
	scan = scanRoots(ctx, roots)
	f.mu.Lock()
	if e := f.cache[key]; e == nil || !e.refreshing {
		f.cache[key] = &entry{scan: scan}
	}
	f.mu.Unlock()
	return scan, false, false
}

func (f *Finder) refresh(key string, roots []string) {
	defer f.running.Done()
	scan := scanRoots(f.ctx, roots)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cache[key] = &entry{scan: scan}
}

// scanRoots walks each root for repositories, within the bounds.
func scanRoots(ctx context.Context, roots []string) *Scan {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, maxTime)
	defer cancel()
	s := &Scan{Repos: []Repo{}, Scanned: []string{}, Skipped: []string{}}
	budget := maxDirs
	seen := map[string]bool{}
	for _, root := range roots {
		canon, err := filepath.EvalSymlinks(root)
		if err != nil {
			s.Skipped = append(s.Skipped, root)
			continue
		}
		if info, err := os.Stat(canon); err != nil || !info.IsDir() {
			s.Skipped = append(s.Skipped, root)
			continue
		}
		s.Scanned = append(s.Scanned, root)
		walk(ctx, canon, 0, &budget, seen, s)
	}
	slices.SortFunc(s.Repos, func(a, b Repo) int { return b.LastModified.Compare(a.LastModified) })
	s.At, s.Took = time.Now(), time.Since(began)
	return s
}

// walk looks for repositories in dir, depth levels below its root. A
// repository's own folders are not searched (its submodules and vendored
// copies are not the user's projects), nor are hidden folders and
// node_modules; symlinks are not followed.
func walk(ctx context.Context, dir string, depth int, budget *int, seen map[string]bool, s *Scan) {
	if ctx.Err() != nil || *budget <= 0 || seen[dir] {
		return
	}
	seen[dir] = true
	*budget--
	if info, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		s.Repos = append(s.Repos, repo(dir, info))
		return
	}
	if depth == maxDepth {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		walk(ctx, filepath.Join(dir, e.Name()), depth+1, budget, seen, s)
	}
}

func repo(dir string, git fs.FileInfo) Repo {
	r := Repo{Name: filepath.Base(dir), Path: dir, LastModified: git.ModTime()}
	gitDir := filepath.Join(dir, ".git")
	if !git.IsDir() {
		return r // a worktree's or submodule's pointer file
	}
	// The index changes with every add, commit and checkout: a better
	// "last worked on" than the folder's own time.
	if info, err := os.Stat(filepath.Join(gitDir, "index")); err == nil {
		r.LastModified = info.ModTime()
	}
	r.RemoteURL = originURL(filepath.Join(gitDir, "config"))
	return r
}

// originURL reads the origin remote's url from a git config file, without
// running git (a scan may find hundreds), and with any credentials in it
// removed.
func originURL(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == `[remote "origin"]`
			continue
		}
		if !in {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "url" {
			return stripCredentials(strings.TrimSpace(v))
		}
	}
	return ""
}

// stripCredentials drops "user:password@" from a URL with a scheme; an
// scp-like address (git@host:path) has a user and no password, and stays.
func stripCredentials(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if path == "" && !strings.HasSuffix(rest, "/") {
		return scheme + "://" + host
	}
	return scheme + "://" + host + "/" + path
}
