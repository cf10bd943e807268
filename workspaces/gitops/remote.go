package gitops

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// The methods that talk to a remote. They run with the network timeout and
// no prompt of any kind: a remote that wants credentials the user's
// credential helper does not have fails with git's message (e.g. "terminal
// prompts disabled"), never waits for a person at the daemon's host.

// network runs a command that talks to a remote.
func (r *Repo) network(ctx context.Context, args ...string) (result, error) {
	return r.g.run(ctx, call{dir: r.Root, args: args, network: true})
}

// networkFailure is git's message for a failed exchange with a remote, with
// what to do when the remote wanted credentials git had no way to ask for.
func networkFailure(r result, err error) string {
	msg := errText(r, err)
	for _, s := range []string{"terminal prompts disabled", "Authentication failed", "Permission denied (publickey",
		"Host key verification failed"} {
		if strings.Contains(msg, s) {
			return msg + " (the remote needs credentials cdevd cannot ask for: set up a credential helper " +
				"or an SSH key, without a passphrase prompt, for the user cdevd runs as)"
		}
	}
	return msg
}

// currentBranch is the checked-out branch, "" when HEAD is detached.
func (r *Repo) currentBranch(ctx context.Context) string {
	out, err := r.run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || out.exit != 0 {
		return ""
	}
	return strings.TrimSpace(string(out.out))
}

// config reads one config value, "" when unset.
func (r *Repo) config(ctx context.Context, key string) string {
	out, err := r.run(ctx, "config", "--get", key)
	if err != nil || out.exit != 0 {
		return ""
	}
	return strings.TrimSpace(string(out.out))
}

// remotes lists the remotes' names.
func (r *Repo) remotes(ctx context.Context) []string {
	out, err := r.run(ctx, "remote")
	if err != nil {
		return nil
	}
	return strings.Fields(string(out.out))
}

// pushRemote is where the branch goes: its configured remote, else origin,
// else the only remote there is.
func (r *Repo) pushRemote(ctx context.Context, branch string) (string, error) {
	if rem := r.config(ctx, "branch."+branch+".remote"); rem != "" {
		return rem, nil
	}
	all := r.remotes(ctx)
	for _, rem := range all {
		if rem == "origin" {
			return rem, nil
		}
	}
	if len(all) == 1 {
		return all[0], nil
	}
	if len(all) == 0 {
		return "", fmt.Errorf("no remote to push to: add one with git/remote/add")
	}
	return "", fmt.Errorf("several remotes and none is origin: set the branch's upstream with git/upstream/set")
}

// Push pushes the current branch, setting its upstream when it has none or
// when asked. force is --force-with-lease: it never overwrites commits the
// local repository has not seen.
func (r *Repo) Push(ctx context.Context, p rpc.GitPushParams) (rpc.GitPushResult, error) {
	var res rpc.GitPushResult
	r.write(func() {
		branch := r.currentBranch(ctx)
		if branch == "" {
			res.Error = "HEAD is detached: check out a branch to push"
			return
		}
		remote, err := r.pushRemote(ctx, branch)
		if err != nil {
			res.Error = err.Error()
			return
		}
		hasUpstream := r.config(ctx, "branch."+branch+".merge") != ""
		count := "@{upstream}..HEAD"
		if !hasUpstream {
			count = "HEAD --not --remotes=" + remote
		}
		if out, err := r.run(ctx, append([]string{"rev-list", "--count"}, strings.Fields(count)...)...); err == nil && out.exit == 0 {
			res.CommitsPushed, _ = strconv.Atoi(strings.TrimSpace(string(out.out)))
		}
		args := []string{"push", "--porcelain"}
		if p.Force {
			args = append(args, "--force-with-lease")
		}
		if p.SetUpstream || !hasUpstream {
			args = append(args, "--set-upstream")
		}
		args = append(args, "--", remote, "refs/heads/"+branch+":refs/heads/"+branch)
		out, err := r.network(ctx, args...)
		if err != nil || out.exit != 0 {
			res = rpc.GitPushResult{Error: networkFailure(out, err)}
			return
		}
		res.Success = true
		res.Message = fmt.Sprintf("pushed %s to %s (%d commit(s))", branch, remote, res.CommitsPushed)
	})
	return res, nil
}

// Pull merges (or rebases onto) the current branch's upstream. Conflicts
// are listed; the repository is left mid-merge for the user to resolve, as
// git leaves it.
func (r *Repo) Pull(ctx context.Context, p rpc.GitPullParams) (rpc.GitPullResult, error) {
	res := rpc.GitPullResult{ConflictedFiles: []string{}}
	r.write(func() {
		branch := r.currentBranch(ctx)
		if branch == "" {
			res.Error = "HEAD is detached: check out a branch to pull"
			return
		}
		if r.config(ctx, "branch."+branch+".merge") == "" {
			res.Error = "the branch " + branch + " has no upstream: set one with git/upstream/set"
			return
		}
		mode := "--no-rebase"
		if p.Rebase {
			mode = "--rebase"
		}
		out, err := r.network(ctx, "pull", mode, "--no-edit")
		if err != nil {
			res.Error = err.Error()
			return
		}
		if out.exit != 0 {
			res.Error = networkFailure(out, nil)
			if c, err := r.run(ctx, "diff", "--name-only", "--diff-filter=U", "-z"); err == nil {
				for _, f := range bytes.Split(bytes.TrimRight(c.out, "\x00"), []byte{0}) {
					if len(f) > 0 {
						res.ConflictedFiles = append(res.ConflictedFiles, string(f))
					}
				}
			}
			return
		}
		res.Success = true
		res.Message = firstLine(string(out.out))
	})
	return res, nil
}

// RemoteAdd adds a remote and, when asked, fetches it.
func (r *Repo) RemoteAdd(ctx context.Context, p rpc.GitRemoteAddParams) (rpc.GitRemoteAddResult, error) {
	name := p.Name
	if name == "" {
		name = "origin"
	}
	if err := r.checkRemoteName(ctx, "name", name); err != nil {
		return rpc.GitRemoteAddResult{}, err
	}
	if strings.TrimSpace(p.URL) == "" {
		return rpc.GitRemoteAddResult{}, rpc.InvalidParams("url", "required")
	}
	if strings.HasPrefix(p.URL, "-") || strings.HasPrefix(p.URL, "ext::") || strings.HasPrefix(p.URL, "fd::") {
		// ext:: runs a command of the URL's choosing (git refuses it by
		// default; a user's protocol.allow could let it through).
		return rpc.GitRemoteAddResult{}, rpc.InvalidParams("url", "not a URL git may fetch from: "+p.URL)
	}
	res := rpc.GitRemoteAddResult{FetchedBranches: []string{}}
	r.write(func() {
		for _, rem := range r.remotes(ctx) {
			if rem == name {
				res.Error = "remote " + name + " already exists"
				return
			}
		}
		out, err := r.run(ctx, "remote", "add", "--", name, p.URL)
		if err != nil || out.exit != 0 {
			res.Error = errText(out, err)
			return
		}
		res.Success = true
		res.Remote = &rpc.GitRemote{Name: name, FetchURL: p.URL, PushURL: p.URL, Provider: provider(p.URL)}
		res.Message = "added remote " + name
		if !p.Fetch {
			return
		}
		f, err := r.network(ctx, "fetch", "--", name)
		if err != nil || f.exit != 0 {
			res.Message = "added remote " + name + ", but the fetch failed"
			res.Error = "fetch failed: " + networkFailure(f, err)
			return
		}
		refs, err := r.run(ctx, "for-each-ref", "--format=%(refname:short)", "refs/remotes/"+name+"/")
		if err == nil {
			for _, b := range strings.Fields(string(refs.out)) {
				if b != name+"/HEAD" && b != name {
					res.FetchedBranches = append(res.FetchedBranches, b)
				}
			}
		}
		res.Message = fmt.Sprintf("added remote %s and fetched %d branch(es)", name, len(res.FetchedBranches))
	})
	return res, nil
}

// provider names the hosting service of a remote URL.
func provider(raw string) string {
	host := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		host = u.Host
	} else if at := strings.Index(raw, "@"); at >= 0 { // git@github.com:owner/repo
		host, _, _ = strings.Cut(raw[at+1:], ":")
	}
	host = strings.ToLower(host)
	for _, p := range []string{"github", "gitlab", "bitbucket"} {
		if strings.Contains(host, p) {
			return p
		}
	}
	return "other"
}

// UpstreamSet makes upstream (remote/branch) the branch's upstream.
func (r *Repo) UpstreamSet(ctx context.Context, p rpc.GitUpstreamSetParams) (rpc.GitResult, error) {
	if strings.TrimSpace(p.Upstream) == "" {
		return rpc.GitResult{}, rpc.InvalidParams("upstream", "required")
	}
	if strings.HasPrefix(p.Upstream, "-") {
		return rpc.GitResult{}, rpc.InvalidParams("upstream", "must not start with '-'")
	}
	branch := p.Branch
	if branch == "" {
		branch = r.currentBranch(ctx)
		if branch == "" {
			return rpc.GitResult{Error: "HEAD is detached: name the branch"}, nil
		}
	}
	if err := r.checkBranch(ctx, "branch", branch); err != nil {
		return rpc.GitResult{}, err
	}
	var res rpc.GitResult
	r.write(func() {
		out, err := r.run(ctx, "branch", "--set-upstream-to="+p.Upstream, "--", branch)
		if err != nil || out.exit != 0 {
			res.Error = errText(out, err)
			return
		}
		res = rpc.GitResult{Success: true, Message: branch + " now tracks " + p.Upstream}
	})
	return res, nil
}
