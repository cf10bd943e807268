package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Diff is a file's unified diff, or every changed file's. The app always
// asks with staged:false, even for a file that is only staged, so the
// staged diff is served when the working tree has none; an untracked file's
// diff shows it whole, as new.
func (r *Repo) Diff(ctx context.Context, p rpc.GitDiffParams) (rpc.GitDiffResult, error) {
	if p.Path == "" {
		return r.diffAll(ctx, p.Staged)
	}
	path, err := r.cleanPath("path", p.Path)
	if err != nil {
		return rpc.GitDiffResult{}, err
	}
	sides := [][]string{{}, {"--cached"}}
	if p.Staged {
		sides = [][]string{{"--cached"}}
	}
	for _, side := range sides {
		d, err := r.diff(ctx, side, path)
		if err != nil {
			return rpc.GitDiffResult{}, err
		}
		if d.Diff != "" {
			d.Path, d.IsStaged = path, len(side) > 0
			return rpc.GitDiffResult{Diffs: []rpc.GitFileDiff{d}}, nil
		}
	}
	d, err := r.untrackedDiff(ctx, path)
	if err != nil {
		return rpc.GitDiffResult{}, err
	}
	if d.Diff == "" {
		return rpc.GitDiffResult{Diffs: []rpc.GitFileDiff{}}, nil
	}
	return rpc.GitDiffResult{Diffs: []rpc.GitFileDiff{d}}, nil
}

// diff runs git diff (side: nothing or --cached) over paths.
func (r *Repo) diff(ctx context.Context, side []string, paths ...string) (rpc.GitFileDiff, error) {
	args := append([]string{"diff", "--no-ext-diff", "--no-color"}, side...)
	args = append(append(args, "--"), paths...)
	out, err := r.g.run(ctx, call{dir: r.Root, args: args, max: r.g.cfg.MaxDiff})
	if err != nil {
		return rpc.GitFileDiff{}, err
	}
	if out.exit != 0 {
		return rpc.GitFileDiff{}, errors.New(out.failure())
	}
	d := string(out.out)
	return rpc.GitFileDiff{Diff: d, IsTruncated: out.truncated,
		IsNew: strings.Contains(d, "\nnew file mode ")}, nil
}

// untrackedDiff shows an untracked file as wholly added (git diff
// --no-index against /dev/null, which exits 1 when the files differ).
func (r *Repo) untrackedDiff(ctx context.Context, path string) (rpc.GitFileDiff, error) {
	ls, err := r.run(ctx, "ls-files", "--others", "--exclude-standard", "-z", "--", path)
	if err != nil {
		return rpc.GitFileDiff{}, err
	}
	if ls.exit != 0 || strings.TrimRight(string(ls.out), "\x00") != path {
		return rpc.GitFileDiff{}, nil
	}
	if fi, err := os.Lstat(filepath.Join(r.Root, path)); err != nil || fi.IsDir() {
		return rpc.GitFileDiff{}, nil
	}
	out, err := r.g.run(ctx, call{dir: r.Root, max: r.g.cfg.MaxDiff,
		args: []string{"diff", "--no-index", "--no-ext-diff", "--no-color", "--", "/dev/null", path}})
	if err != nil {
		return rpc.GitFileDiff{}, err
	}
	if out.exit > 1 {
		return rpc.GitFileDiff{}, errors.New(out.failure())
	}
	return rpc.GitFileDiff{Path: path, Diff: string(out.out), IsNew: true, IsTruncated: out.truncated}, nil
}

// diffAll splits the working tree's diff (or, when it has none, the staged
// one) by file.
func (r *Repo) diffAll(ctx context.Context, staged bool) (rpc.GitDiffResult, error) {
	sides := [][]string{{}, {"--cached"}}
	if staged {
		sides = [][]string{{"--cached"}}
	}
	res := rpc.GitDiffResult{Diffs: []rpc.GitFileDiff{}}
	for _, side := range sides {
		out, err := r.g.run(ctx, call{dir: r.Root, args: append(append([]string{"diff", "--no-ext-diff", "--no-color"}, side...), "--")})
		if err != nil {
			return res, err
		}
		if out.exit != 0 {
			return res, errors.New(out.failure())
		}
		for _, d := range splitDiff(string(out.out), r.g.cfg.MaxDiff) {
			d.IsStaged = len(side) > 0
			res.Diffs = append(res.Diffs, d)
		}
		if len(res.Diffs) > 0 {
			return res, nil
		}
	}
	return res, nil
}

// splitDiff cuts a multi-file diff at each "diff --git" header, capping
// each file's part at max bytes (at a line's end).
func splitDiff(all string, max int) []rpc.GitFileDiff {
	var out []rpc.GitFileDiff
	var start, end int // the current file's kept part: all[start:end]
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Diff = all[start:end]
		}
	}
	for pos := 0; pos < len(all); {
		next := strings.IndexByte(all[pos:], '\n') + pos + 1
		if next == pos { // no newline left
			next = len(all)
		}
		line := all[pos:next]
		if strings.HasPrefix(line, "diff --git ") || len(out) == 0 {
			flush()
			out = append(out, rpc.GitFileDiff{Path: diffPath(line)})
			start, end = pos, pos
		}
		d := &out[len(out)-1]
		switch {
		case d.IsTruncated:
		case next-start > max:
			d.IsTruncated = true
		default:
			end = next
			if strings.HasPrefix(line, "new file mode ") {
				d.IsNew = true
			}
			if to, ok := strings.CutPrefix(line, "rename to "); ok {
				d.Path = strings.TrimSuffix(to, "\n")
			}
		}
		pos = next
	}
	flush()
	return out
}

// diffPath reads the path of "diff --git a/P b/P" (both sides equal except
// for renames, whose "rename to" line corrects it).
func diffPath(header string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(header, "diff --git "), "\n")
	if len(s) < 5 {
		return s
	}
	n := (len(s) - 5) / 2 // "a/" P " b/" P
	return s[2 : 2+n]
}
