package gitops

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
)

// Log page sizes.
const (
	defaultLogLimit = 50
	maxLogLimit     = 500
)

// logFormat: one commit per NUL-separated record (-z), fields separated by
// 0x1f. The author's name and the subject, the only fields that could hold
// a 0x1f, come last, and the subject takes whatever is left.
const logFormat = "%H%x1f%h%x1f%P%x1f%aI%x1f%ar%x1f%D%x1f%ae%x1f%an%x1f%s"

const logFields = 9

// Log is a page of HEAD's history, newest first (in topological order when
// the graph is asked for, so that lanes never cross back). Every commit
// comes out complete: a field git cannot give (a malformed date, a missing
// author) is filled with a placeholder rather than left out, because the
// app fails the whole page on one incomplete commit.
func (r *Repo) Log(ctx context.Context, p rpc.GitLogParams) (rpc.GitLogResult, error) {
	res := rpc.GitLogResult{Commits: []rpc.GitCommit{}}
	if p.Limit < 0 || p.Offset < 0 {
		return res, rpc.InvalidParams("limit", "must not be negative")
	}
	limit := p.Limit
	if limit == 0 {
		limit = defaultLogLimit
	}
	limit = min(limit, maxLogLimit)
	if !r.hasHead(ctx) {
		return res, nil // no commits yet
	}
	if out, err := r.run(ctx, "rev-list", "--count", "HEAD"); err == nil && out.exit == 0 {
		res.TotalCount, _ = strconv.Atoi(strings.TrimSpace(string(out.out)))
	}
	args := []string{"log", "-z", "--format=" + logFormat, "--decorate=full", "-n", strconv.Itoa(limit)}
	if p.Graph {
		// The lanes of a page depend on every commit above it, so the
		// graph is laid out from the top.
		args = []string{"log", "-z", "--format=" + logFormat, "--decorate=full", "--topo-order",
			"-n", strconv.Itoa(p.Offset + limit)}
	} else if p.Offset > 0 {
		args = append(args, "--skip="+strconv.Itoa(p.Offset))
	}
	out, err := r.run(ctx, append(args, "HEAD", "--")...)
	if err != nil {
		return res, err
	}
	if out.exit != 0 {
		return res, &LogError{Msg: out.failure()}
	}
	var all []rpc.GitCommit
	for _, rec := range bytes.Split(bytes.TrimRight(out.out, "\x00"), []byte{0}) {
		if c, ok := parseCommit(string(rec)); ok {
			all = append(all, c)
		}
	}
	if p.Graph {
		res.MaxColumns = layGraph(all, p.Offset)
		all = all[min(p.Offset, len(all)):]
	}
	res.Commits = append(res.Commits, all...)
	res.HasMore = p.Offset+len(res.Commits) < res.TotalCount
	return res, nil
}

// LogError is git log failing in a repository that has commits.
type LogError struct{ Msg string }

func (e *LogError) Error() string { return e.Msg }

// parseCommit reads one record of logFormat; ok is false only for a record
// without a commit id (nothing to show).
func parseCommit(rec string) (rpc.GitCommit, bool) {
	f := strings.SplitN(strings.TrimPrefix(rec, "\n"), "\x1f", logFields)
	if len(f) < 1 || !isHex(f[0]) {
		return rpc.GitCommit{}, false
	}
	for len(f) < logFields {
		f = append(f, "")
	}
	c := rpc.GitCommit{SHA: f[0], ShortSHA: f[1], RelativeDate: f[4],
		AuthorEmail: valid(f[6]), Author: valid(f[7]), Subject: valid(f[8]),
		ParentSHAs: []string{}, Refs: refs(f[5])}
	if c.ShortSHA == "" {
		c.ShortSHA = c.SHA[:min(7, len(c.SHA))]
	}
	for _, p := range strings.Fields(f[2]) {
		if isHex(p) {
			c.ParentSHAs = append(c.ParentSHAs, p)
		}
	}
	c.IsMerge = len(c.ParentSHAs) > 1
	if t, err := time.Parse(time.RFC3339, f[3]); err == nil {
		c.Date = rpc.FormatTime(t)
	} else {
		c.Date = rpc.FormatTime(time.Unix(0, 0)) // git could not read the date
		c.RelativeDate = "unknown date"
	}
	if c.Author == "" {
		c.Author = "unknown"
	}
	return c, true
}

func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// valid replaces bytes that are not UTF-8 (a commit may carry any), so that
// the JSON text is what the app shows.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// refs reads %D with --decorate=full: "HEAD -> refs/heads/main,
// refs/remotes/origin/main, tag: refs/tags/v1".
func refs(d string) []rpc.GitRef {
	out := []rpc.GitRef{}
	for _, part := range strings.Split(d, ", ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if h, ok := strings.CutPrefix(part, "HEAD -> "); ok {
			out = append(out, rpc.GitRef{Name: "HEAD", Type: "head"})
			part = h
		}
		part = strings.TrimPrefix(part, "tag: ")
		switch {
		case part == "HEAD":
			out = append(out, rpc.GitRef{Name: "HEAD", Type: "head"})
		case strings.HasPrefix(part, "refs/heads/"):
			out = append(out, rpc.GitRef{Name: strings.TrimPrefix(part, "refs/heads/"), Type: "branch"})
		case strings.HasPrefix(part, "refs/remotes/"):
			if !strings.HasSuffix(part, "/HEAD") {
				out = append(out, rpc.GitRef{Name: strings.TrimPrefix(part, "refs/remotes/"), Type: "remote"})
			}
		case strings.HasPrefix(part, "refs/tags/"):
			out = append(out, rpc.GitRef{Name: strings.TrimPrefix(part, "refs/tags/"), Type: "tag"})
		}
	}
	return out
}

// layGraph assigns each commit a column and the lines drawn in its row,
// commits in topological order, newest first. A lane holds the commit it
// waits for; a commit takes the lane that waits for it (the leftmost, when
// several children wait: the others end in it), passes the lane on to its
// first parent, and opens or joins lanes for its other parents. It returns
// the widest row from skip on.
func layGraph(commits []rpc.GitCommit, skip int) int {
	var lanes []string
	widest := 0
	take := func(sha string) int {
		for i, l := range lanes {
			if l == "" {
				lanes[i] = sha
				return i
			}
		}
		lanes = append(lanes, sha)
		return len(lanes) - 1
	}
	for n := range commits {
		c := &commits[n]
		col := -1
		lines := []rpc.GitGraphLine{}
		for i, l := range lanes {
			if l != c.SHA {
				continue
			}
			if col < 0 {
				col = i
				continue
			}
			lines = append(lines, rpc.GitGraphLine{FromColumn: i, ToColumn: col, Type: "branch"})
			lanes[i] = ""
		}
		if col < 0 {
			col = take(c.SHA)
		}
		lanes[col] = ""
		if len(c.ParentSHAs) > 0 {
			lanes[col] = c.ParentSHAs[0]
			lines = append(lines, rpc.GitGraphLine{FromColumn: col, ToColumn: col, Type: "straight"})
		}
		for _, p := range c.ParentSHAs[min(1, len(c.ParentSHAs)):] {
			to := -1
			for i, l := range lanes {
				if l == p {
					to = i
					break
				}
			}
			if to < 0 {
				to = take(p)
			}
			lines = append(lines, rpc.GitGraphLine{FromColumn: col, ToColumn: to, Type: "merge"})
		}
		for i, l := range lanes {
			if l != "" && i != col && !isTarget(lines, i) {
				lines = append(lines, rpc.GitGraphLine{FromColumn: i, ToColumn: i, Type: "straight"})
			}
		}
		for len(lanes) > 0 && lanes[len(lanes)-1] == "" {
			lanes = lanes[:len(lanes)-1]
		}
		c.GraphPosition = &rpc.GitGraphPosition{Column: col, Lines: lines}
		if n >= skip {
			widest = max(widest, col+1, len(lanes))
			for _, l := range lines {
				widest = max(widest, l.FromColumn+1, l.ToColumn+1)
			}
		}
	}
	return widest
}

// isTarget reports whether a merge line of this row already leads to lane i.
func isTarget(lines []rpc.GitGraphLine, i int) bool {
	for _, l := range lines {
		if l.Type == "merge" && l.ToColumn == i {
			return true
		}
	}
	return false
}
