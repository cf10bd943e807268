package turns

import (
	"bytes"
	"context"
	"strconv"
	"strings"
)

// File is one file a turn changed.
type File struct {
	Path string `json:"path"`
	// Status is "added", "modified" or "deleted".
	Status string `json:"status"`
	// Additions and Deletions count lines; both 0 for a binary file.
	Additions int  `json:"additions"`
	Deletions int  `json:"deletions"`
	Binary    bool `json:"binary,omitempty"`
}

// Diff is what changed between two snapshots.
type Diff struct {
	Files []File `json:"files"`
	// Unified is git's unified diff, capped at Config.MaxDiff.
	Unified     string `json:"diff"`
	IsTruncated bool   `json:"is_truncated"`
}

// Diff compares two snapshots. Renames are shown as a deletion and an
// addition: that is what a revert undoes, file by file.
func (r *Repo) Diff(ctx context.Context, from, to string) (Diff, error) {
	files, err := r.changed(ctx, from, to)
	if err != nil || len(files) == 0 {
		return Diff{Files: files}, err
	}
	out, err := r.s.git(ctx, r.Root, r.readEnv(), "diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", from, to)
	if err != nil {
		return Diff{}, err
	}
	d := Diff{Files: files, Unified: string(out)}
	if len(out) > r.s.cfg.MaxDiff {
		// Cut at a line's end so that a client never shows half a line.
		cut := bytes.LastIndexByte(out[:r.s.cfg.MaxDiff], '\n') + 1
		d.Unified, d.IsTruncated = string(out[:cut]), true
	}
	return d, nil
}

// changed lists the files that differ between two trees, with their line
// counts.
func (r *Repo) changed(ctx context.Context, from, to string) ([]File, error) {
	if from == to {
		return []File{}, nil
	}
	status, err := r.s.git(ctx, r.Root, r.readEnv(), "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to)
	if err != nil {
		return nil, err
	}
	nums, err := r.s.git(ctx, r.Root, r.readEnv(), "diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to)
	if err != nil {
		return nil, err
	}
	// --numstat -z: "added\tdeleted\tpath\0", "-\t-\tpath\0" for binary.
	counts := map[string][3]int{}
	for _, rec := range strings.Split(string(nums), "\x00") {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "-" {
			counts[parts[2]] = [3]int{0, 0, 1}
			continue
		}
		a, _ := strconv.Atoi(parts[0])
		d, _ := strconv.Atoi(parts[1])
		counts[parts[2]] = [3]int{a, d, 0}
	}
	// --name-status -z: "S\0path\0" pairs.
	fields := strings.Split(strings.TrimSuffix(string(status), "\x00"), "\x00")
	files := []File{}
	for i := 0; i+1 < len(fields); i += 2 {
		f := File{Path: fields[i+1], Status: statusName(fields[i])}
		c := counts[f.Path]
		f.Additions, f.Deletions, f.Binary = c[0], c[1], c[2] == 1
		files = append(files, f)
	}
	return files, nil
}

func statusName(s string) string {
	switch s {
	case "A":
		return "added"
	case "D":
		return "deleted"
	default: // M, and T (a file became a symlink or the reverse)
		return "modified"
	}
}
