package gitops

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Branches lists local and remote-tracking branches, the current one first
// among the locals as git sorts them (by name).
func (r *Repo) Branches(ctx context.Context) (rpc.GitBranchesResult, error) {
	res := rpc.GitBranchesResult{Branches: []rpc.GitBranch{}}
	out, err := r.run(ctx, "for-each-ref",
		"--format=%(refname)%00%(refname:short)%00%(upstream:short)%00%(HEAD)%00",
		"refs/heads", "refs/remotes")
	if err != nil {
		return res, err
	}
	if out.exit != 0 {
		return res, errors.New(out.failure())
	}
	for _, line := range bytes.Split(out.out, []byte("\n")) {
		f := strings.Split(string(line), "\x00")
		if len(f) < 4 {
			continue
		}
		full, short, upstream, head := f[0], f[1], f[2], f[3]
		remote := strings.HasPrefix(full, "refs/remotes/")
		if remote && strings.HasSuffix(full, "/HEAD") {
			continue // origin/HEAD is an alias, not a branch
		}
		b := rpc.GitBranch{Name: short, IsRemote: remote, IsCurrent: head == "*", Upstream: upstream}
		if b.IsCurrent {
			res.Current, res.Upstream = short, upstream
		}
		res.Branches = append(res.Branches, b)
	}
	if res.Current == "" {
		res.Current = r.currentBranch(ctx) // an unborn branch has no ref yet
	}
	if res.Upstream != "" {
		if st, err := r.summaryStatus(ctx); err == nil {
			res.Ahead, res.Behind = st.Ahead, st.Behind
		}
	}
	return res, nil
}

// isRef reports whether ref names something (a local or remote branch).
func (r *Repo) isRef(ctx context.Context, ref string) bool {
	out, err := r.run(ctx, "show-ref", "--verify", "--quiet", ref)
	return err == nil && out.exit == 0
}

// Checkout switches to a branch, creating it from HEAD when create is set.
// A remote-tracking branch (origin/x) with no local branch of its own is
// checked out as a new local branch that tracks it.
func (r *Repo) Checkout(ctx context.Context, p rpc.GitCheckoutParams) (rpc.GitCheckoutResult, error) {
	if err := r.checkBranch(ctx, "branch", p.Branch); err != nil {
		return rpc.GitCheckoutResult{}, err
	}
	var res rpc.GitCheckoutResult
	r.write(func() {
		branch := p.Branch
		var args []string
		switch {
		case p.Create:
			if r.isRef(ctx, "refs/heads/"+branch) {
				res.Error = "a branch named " + branch + " already exists"
				return
			}
			args = []string{"switch", "--create", branch}
		case !r.isRef(ctx, "refs/heads/"+branch) && r.isRef(ctx, "refs/remotes/"+branch):
			_, local, _ := strings.Cut(branch, "/")
			args = []string{"switch", "--create", local, "--track", "refs/remotes/" + branch}
			branch = local
		default:
			args = []string{"switch", branch}
		}
		out, err := r.run(ctx, args...)
		if err != nil || out.exit != 0 {
			res.Error = errText(out, err)
			return
		}
		res = rpc.GitCheckoutResult{Success: true, Branch: branch, Message: "switched to " + branch}
	})
	return res, nil
}

// BranchDelete deletes a local branch (refusing an unmerged one unless
// forced, as git does) and, when asked, the branch of the same name on its
// remote.
func (r *Repo) BranchDelete(ctx context.Context, p rpc.GitBranchDeleteParams) (rpc.GitBranchDeleteResult, error) {
	if err := r.checkBranch(ctx, "branch", p.Branch); err != nil {
		return rpc.GitBranchDeleteResult{}, err
	}
	var res rpc.GitBranchDeleteResult
	r.write(func() {
		// Read before the branch (and its config) goes.
		remote := r.config(ctx, "branch."+p.Branch+".remote")
		remoteBranch := strings.TrimPrefix(r.config(ctx, "branch."+p.Branch+".merge"), "refs/heads/")
		flag := "-d"
		if p.Force {
			flag = "-D"
		}
		out, err := r.run(ctx, "branch", flag, "--", p.Branch)
		if err != nil || out.exit != 0 {
			res.Error = errText(out, err)
			return
		}
		res = rpc.GitBranchDeleteResult{Success: true, Branch: p.Branch, Message: "deleted " + p.Branch}
		if !p.DeleteRemote {
			return
		}
		if remote == "" || remote == "." {
			if rem, err := r.pushRemote(ctx, p.Branch); err == nil {
				remote = rem
			}
		}
		if remoteBranch == "" {
			remoteBranch = p.Branch
		}
		if remote == "" {
			res.Error = "deleted locally; no remote to delete it from"
			return
		}
		push, err := r.network(ctx, "push", "--delete", "--", remote, "refs/heads/"+remoteBranch)
		if err != nil || push.exit != 0 {
			res.Error = "deleted locally, but not on " + remote + ": " + networkFailure(push, err)
			return
		}
		res.DeletedRemote = true
		res.Message = "deleted " + p.Branch + " here and on " + remote
	})
	return res, nil
}
