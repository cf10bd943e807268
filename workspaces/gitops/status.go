package gitops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cdevd/cdevd/rpc"
)

// maxLineCounts: git/status counts added and deleted lines only when at most
// this many files changed. The counts take a second and third git run over
// the changed files; past this many, status would no longer be about as
// fast as `git status` itself, and a list that long is scrolled, not read.
const maxLineCounts = 100

// Status is the working tree's state (git status --porcelain=v2).
func (r *Repo) Status(ctx context.Context) (rpc.GitStatusResult, error) {
	res, err := r.summaryStatus(ctx)
	if err != nil {
		return res, err
	}
	res.RepoRoot, res.RepoName = r.Root, filepath.Base(r.Root)
	for _, l := range []*[]rpc.GitFile{&res.Staged, &res.Unstaged, &res.Untracked, &res.Conflicted} {
		if *l == nil {
			*l = []rpc.GitFile{} // [] rather than null: the app decodes lists
		}
	}
	if n := len(res.Staged) + len(res.Unstaged); n > 0 && n <= maxLineCounts {
		// The two sides at once: each is a git start, which is most of
		// what a small count costs.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.lineCounts(ctx, res.Staged, "--cached")
		}()
		r.lineCounts(ctx, res.Unstaged)
		wg.Wait()
	}
	return res, nil
}

// parseStatus reads porcelain v2 with -z into res.
func parseStatus(b []byte, res *rpc.GitStatusResult) {
	fields := bytes.Split(b, []byte{0})
	for i := 0; i < len(fields); i++ {
		line := string(fields[i])
		switch {
		case strings.HasPrefix(line, "# branch.head "):
			if h := strings.TrimPrefix(line, "# branch.head "); h != "(detached)" {
				res.Branch = h
			}
		case strings.HasPrefix(line, "# branch.upstream "):
			res.Upstream = strings.TrimPrefix(line, "# branch.upstream ")
		case strings.HasPrefix(line, "# branch.ab "):
			var a, b int
			for _, f := range strings.Fields(strings.TrimPrefix(line, "# branch.ab ")) {
				n, _ := strconv.Atoi(f[1:])
				if f[0] == '+' {
					a = n
				} else {
					b = n
				}
			}
			res.Ahead, res.Behind = a, b
		case strings.HasPrefix(line, "1 "), strings.HasPrefix(line, "2 "):
			// "1 XY sub mH mI mW hH hI path"; "2 … Xscore path" then the
			// original path as the next field.
			n := 9
			if line[0] == '2' {
				n = 10
			}
			parts := strings.SplitN(line, " ", n)
			if len(parts) < n || len(parts[1]) != 2 {
				continue
			}
			f := rpc.GitFile{Path: parts[n-1]}
			if line[0] == '2' && i+1 < len(fields) {
				i++
				f.OldPath = string(fields[i])
			}
			x, y := parts[1][0], parts[1][1]
			if x != '.' {
				s := f
				s.Status = string(x)
				res.Staged = append(res.Staged, s)
			}
			if y != '.' {
				u := f
				u.Status = string(y)
				res.Unstaged = append(res.Unstaged, u)
			}
		case strings.HasPrefix(line, "u "):
			parts := strings.SplitN(line, " ", 11)
			if len(parts) == 11 {
				res.Conflicted = append(res.Conflicted, rpc.GitFile{Path: parts[10], Status: "U"})
			}
		case strings.HasPrefix(line, "? "):
			res.Untracked = append(res.Untracked, rpc.GitFile{Path: line[2:], Status: "?"})
		}
	}
}

// lineCounts fills additions and deletions of files from git diff
// --numstat (extra: "--cached" for the staged side). Binary files stay
// without counts; a failure leaves every count out (they are optional).
func (r *Repo) lineCounts(ctx context.Context, files []rpc.GitFile, extra ...string) {
	if len(files) == 0 {
		return
	}
	args := append([]string{"diff", "--numstat", "-z", "--no-ext-diff", "--no-renames"}, extra...)
	args = append(args, "--")
	for _, f := range files {
		args = append(args, f.Path)
	}
	out, err := r.run(ctx, args...)
	if err != nil || out.exit != 0 {
		return
	}
	counts := map[string][2]int{}
	for _, rec := range bytes.Split(out.out, []byte{0}) {
		// "added<TAB>deleted<TAB>path"; "-" for binary files.
		p := strings.SplitN(string(rec), "\t", 3)
		if len(p) != 3 {
			continue
		}
		a, errA := strconv.Atoi(p[0])
		d, errD := strconv.Atoi(p[1])
		if errA == nil && errD == nil {
			counts[p[2]] = [2]int{a, d}
		}
	}
	for i := range files {
		if c, ok := counts[files[i].Path]; ok {
			a, d := c[0], c[1]
			files[i].Additions, files[i].Deletions = &a, &d
		}
	}
}

// Summary is the workspace's git state for workspace/list and events; a
// folder outside any repository is {initialized:false, state:"none"}.
func (g *Git) Summary(ctx context.Context, dir string) rpc.GitSummary {
	r, err := g.Open(ctx, dir)
	if err != nil {
		return rpc.GitSummary{State: "none"}
	}
	st, err := r.summaryStatus(ctx)
	if err != nil {
		return rpc.GitSummary{Initialized: true, State: "none"}
	}
	s := rpc.GitSummary{Initialized: true, Branch: st.Branch, Ahead: st.Ahead, Behind: st.Behind,
		StagedCount: len(st.Staged), UnstagedCount: len(st.Unstaged), UntrackedCount: len(st.Untracked)}
	if rem, err := r.run(ctx, "remote"); err == nil && len(bytes.TrimSpace(rem.out)) > 0 {
		s.HasRemotes = true
	}
	s.State = r.state(len(st.Conflicted) > 0, s.StagedCount+s.UnstagedCount+s.UntrackedCount > 0)
	return s
}

// summaryStatus is Status without line counts (and with nil lists).
func (r *Repo) summaryStatus(ctx context.Context) (rpc.GitStatusResult, error) {
	var res rpc.GitStatusResult
	out, err := r.run(ctx, "status", "--porcelain=v2", "--branch", "-z")
	if err != nil {
		return res, err
	}
	if out.exit != 0 {
		return res, errors.New(out.failure())
	}
	parseStatus(out.out, &res)
	return res, nil
}

// state names what the repository is in the middle of, else clean or dirty.
func (r *Repo) state(conflicted, dirty bool) string {
	gitDir := r.gitDir()
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(gitDir, name)); return err == nil }
	switch {
	case exists("rebase-merge"), exists("rebase-apply"):
		return "rebasing"
	case exists("MERGE_HEAD"):
		return "merging"
	case conflicted:
		return "conflicted"
	case dirty:
		return "dirty"
	}
	return "clean"
}

// gitDir is the repository's .git folder (or the one a .git file points
// to, for a worktree or submodule).
func (r *Repo) gitDir() string {
	dot := filepath.Join(r.Root, ".git")
	b, err := os.ReadFile(dot)
	if err != nil {
		return dot // a folder, or missing
	}
	if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.Root, p)
		}
		return p
	}
	return dot
}
