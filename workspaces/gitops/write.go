package gitops

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// The methods that change the index or the history. Each runs under the
// repository's write lock; a failure git reports is an answer
// (success:false and git's message), not a JSON-RPC error.

// counts fills the staged and unstaged counts after a change.
func (r *Repo) counts(ctx context.Context, res *rpc.GitPathsResult) {
	if st, err := r.summaryStatus(ctx); err == nil {
		res.StagedCount, res.UnstagedCount = len(st.Staged), len(st.Unstaged)+len(st.Untracked)
	}
}

// Stage adds paths to the index (new, changed and deleted files alike).
func (r *Repo) Stage(ctx context.Context, p rpc.GitPathsParams) (rpc.GitPathsResult, error) {
	paths, err := r.cleanPaths(p.Paths)
	if err != nil {
		return rpc.GitPathsResult{}, err
	}
	var res rpc.GitPathsResult
	r.write(func() {
		res = r.pathsOp(ctx, "staged", append([]string{"add", "--all", "--"}, paths...))
	})
	return res, nil
}

// Unstage takes paths out of the index, keeping the working tree. In a
// repository without commits yet there is no HEAD to reset to, so the
// paths are removed from the index instead.
func (r *Repo) Unstage(ctx context.Context, p rpc.GitPathsParams) (rpc.GitPathsResult, error) {
	paths, err := r.cleanPaths(p.Paths)
	if err != nil {
		return rpc.GitPathsResult{}, err
	}
	var res rpc.GitPathsResult
	r.write(func() {
		args := append([]string{"restore", "--staged", "--"}, paths...)
		if !r.hasHead(ctx) {
			args = append([]string{"rm", "--cached", "-r", "--quiet", "--ignore-unmatch", "--"}, paths...)
		}
		res = r.pathsOp(ctx, "unstaged", args)
	})
	return res, nil
}

// pathsOp runs one index command and reports the counts after it.
func (r *Repo) pathsOp(ctx context.Context, done string, args []string) rpc.GitPathsResult {
	out, err := r.run(ctx, args...)
	if err != nil {
		return rpc.GitPathsResult{Error: err.Error()}
	}
	if out.exit != 0 {
		return rpc.GitPathsResult{Error: out.failure()}
	}
	res := rpc.GitPathsResult{Success: true, Message: fmt.Sprintf("%s %d path(s)", done, len(args)-indexOf(args, "--")-1)}
	r.counts(ctx, &res)
	return res
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// Discard throws away the working tree's changes to paths: tracked files go
// back to the index's version, untracked ones are deleted (git clean, which
// leaves ignored files alone). Staged changes are kept.
func (r *Repo) Discard(ctx context.Context, p rpc.GitPathsParams) (rpc.GitPathsResult, error) {
	paths, err := r.cleanPaths(p.Paths)
	if err != nil {
		return rpc.GitPathsResult{}, err
	}
	var res rpc.GitPathsResult
	r.write(func() {
		st, err := r.summaryStatus(ctx)
		if err != nil {
			res.Error = err.Error()
			return
		}
		var tracked, untracked []string
		for _, p := range paths {
			for _, f := range st.Unstaged {
				if covers(p, f.Path) {
					tracked = append(tracked, f.Path)
				}
			}
			for _, f := range st.Untracked {
				if covers(p, f.Path) {
					untracked = append(untracked, f.Path)
				}
			}
		}
		if len(tracked)+len(untracked) == 0 {
			res = rpc.GitPathsResult{Success: true, Message: "nothing to discard"}
			r.counts(ctx, &res)
			return
		}
		if len(tracked) > 0 {
			out, err := r.run(ctx, append([]string{"restore", "--worktree", "--"}, tracked...)...)
			if err == nil && out.exit != 0 {
				err = fmt.Errorf("%s", out.failure())
			}
			if err != nil {
				res.Error = err.Error()
				return
			}
		}
		if len(untracked) > 0 {
			out, err := r.run(ctx, append([]string{"clean", "-f", "-d", "--"}, untracked...)...)
			if err == nil && out.exit != 0 {
				err = fmt.Errorf("%s", out.failure())
			}
			if err != nil {
				res.Error = err.Error()
				return
			}
		}
		n := len(tracked) + len(untracked)
		res = rpc.GitPathsResult{Success: true, DiscardedCount: n, Message: fmt.Sprintf("discarded %d file(s)", n)}
		r.counts(ctx, &res)
	})
	return res, nil
}

// covers reports whether the asked path p is file f or a folder above it.
func covers(p, f string) bool {
	return p == "." || p == f || strings.HasPrefix(f, p+"/") || strings.TrimSuffix(f, "/") == p
}

// hasHead reports whether HEAD names a commit (false in a new repository).
func (r *Repo) hasHead(ctx context.Context) bool {
	out, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "HEAD")
	return err == nil && out.exit == 0
}

// Commit commits what is staged (the user's hooks run), then pushes when
// asked. The message goes through stdin, so any text is a message.
func (r *Repo) Commit(ctx context.Context, p rpc.GitCommitParams) (rpc.GitCommitResult, error) {
	if strings.TrimSpace(p.Message) == "" {
		return rpc.GitCommitResult{}, rpc.InvalidParams("message", "required")
	}
	var res rpc.GitCommitResult
	r.write(func() { res = r.commitLocked(ctx, p.Message) })
	if res.Success && p.Push {
		push, err := r.Push(ctx, rpc.GitPushParams{})
		if err != nil {
			return res, err
		}
		res.Pushed = push.Success
		if !push.Success {
			res.Error = "committed, but the push failed: " + push.Error
		}
	}
	return res, nil
}

func (r *Repo) commitLocked(ctx context.Context, message string) rpc.GitCommitResult {
	staged, err := r.run(ctx, "diff", "--cached", "--quiet", "--no-ext-diff")
	if err != nil {
		return rpc.GitCommitResult{Error: err.Error()}
	}
	if staged.exit == 0 && r.hasHead(ctx) {
		return rpc.GitCommitResult{Error: "nothing to commit: no staged changes (stage files first)"}
	}
	out, err := r.g.run(ctx, call{dir: r.Root, args: []string{"commit", "--file=-"}, stdin: []byte(message)})
	if err != nil {
		return rpc.GitCommitResult{Error: err.Error()}
	}
	if out.exit != 0 {
		msg := out.failure()
		if strings.Contains(string(out.out), "nothing to commit") || strings.Contains(string(out.out), "nothing added to commit") {
			msg = "nothing to commit: no staged changes (stage files first)"
		}
		return rpc.GitCommitResult{Error: msg}
	}
	res := rpc.GitCommitResult{Success: true, Message: firstLine(message)}
	if head, err := r.run(ctx, "rev-parse", "HEAD"); err == nil && head.exit == 0 {
		res.SHA = strings.TrimSpace(string(head.out))
	}
	if files, err := r.run(ctx, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", "-z", "HEAD"); err == nil {
		res.FilesCommitted = bytes.Count(files.out, []byte{0})
	}
	return res
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Init makes dir a repository (git init -b branch) and, when asked, commits
// every file not ignored. dir must not be inside a repository already.
func (g *Git) Init(ctx context.Context, dir string, p rpc.GitInitParams) (rpc.GitInitResult, error) {
	branch := p.InitialBranch
	if branch == "" {
		branch = "main"
	}
	if strings.HasPrefix(branch, "-") {
		return rpc.GitInitResult{}, rpc.InvalidParams("initial_branch", "must not start with '-'")
	}
	if r, err := g.Open(ctx, dir); err == nil {
		return rpc.GitInitResult{Error: "already a git repository: " + r.Root}, nil
	} else if !isNotRepo(err) {
		return rpc.GitInitResult{Error: err.Error()}, nil
	}
	check, err := g.run(ctx, call{dir: dir, args: []string{"check-ref-format", "--branch", branch}})
	if err != nil {
		return rpc.GitInitResult{}, err
	}
	if check.exit != 0 {
		return rpc.GitInitResult{}, rpc.InvalidParams("initial_branch", "not a valid branch name: "+branch)
	}
	out, err := g.run(ctx, call{dir: dir, args: []string{"init", "--initial-branch=" + branch}})
	if err != nil {
		return rpc.GitInitResult{Error: err.Error()}, nil
	}
	if out.exit != 0 {
		return rpc.GitInitResult{Error: out.failure()}, nil
	}
	res := rpc.GitInitResult{Success: true, Branch: branch, Message: "initialized an empty git repository"}
	if !p.InitialCommit {
		return res, nil
	}
	r, err := g.Open(ctx, dir)
	if err != nil {
		return rpc.GitInitResult{Branch: branch, Error: "initialized, but: " + err.Error()}, nil
	}
	r.write(func() {
		if add, err := r.run(ctx, "add", "--all"); err != nil || add.exit != 0 {
			res = rpc.GitInitResult{Branch: branch, Error: "initialized, but staging failed: " + errText(add, err)}
			return
		}
		c := r.commitLocked(ctx, "Initial commit")
		if !c.Success {
			res.Message = "initialized; nothing committed: " + c.Error
			return
		}
		res.CommitSHA, res.FilesCommitted = c.SHA, c.FilesCommitted
		res.Message = fmt.Sprintf("initialized and committed %d file(s)", c.FilesCommitted)
	})
	return res, nil
}

func errText(r result, err error) string {
	if err != nil {
		return err.Error()
	}
	return r.failure()
}

func isNotRepo(err error) bool {
	_, ok := err.(*NotRepoError)
	return ok
}
