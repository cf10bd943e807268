package files

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// Listing limits.
const (
	DefaultLimit = 500
	MaxLimit     = 2000
)

// GitState tells tracked and ignored files apart in a git work tree. Nil
// outside one (the listing then leaves git_tracked and git_ignored out).
type GitState interface {
	// Tracked reports whether git tracks the file at the workspace-relative
	// path rel, and whether it ignores it.
	Tracked(rel string) (tracked, ignored bool)
}

// List serves one page of the directory at a client's path dir in w:
// directories, then files, each sorted by name; .git is left out. A
// symlink is listed as a file (is_symlink) whatever it points to, and not
// followed: reading it goes through Resolve like any path.
func List(w workspaces.Workspace, p rpc.FilesListParams, git GitState) (rpc.FilesListResult, error) {
	limit := cmp.Or(p.Limit, DefaultLimit)
	if limit < 0 || limit > MaxLimit {
		return rpc.FilesListResult{}, rpc.InvalidParams("limit", "between 0 and 2000")
	}
	if p.Offset < 0 {
		return rpc.FilesListResult{}, rpc.InvalidParams("offset", "must not be negative")
	}
	t, err := Resolve(w, p.Directory)
	if err != nil {
		return rpc.FilesListResult{}, err
	}
	if info, err := os.Stat(t.Abs); err == nil && !info.IsDir() {
		return rpc.FilesListResult{}, rpc.InvalidPath(p.Directory, "is not a directory (read it with workspace/file/get)")
	}
	entries, err := os.ReadDir(t.Abs)
	if err != nil {
		return rpc.FilesListResult{}, rpc.InvalidPath(p.Directory, "cannot be listed: "+reason(err))
	}
	var dirs, files []fs.DirEntry
	for _, e := range entries {
		switch {
		case e.Name() == ".git":
		case e.IsDir():
			dirs = append(dirs, e)
		default:
			files = append(files, e)
		}
	}
	byName := func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }
	slices.SortFunc(dirs, byName)
	slices.SortFunc(files, byName)

	res := rpc.FilesListResult{Directory: t.Rel, Files: []rpc.FileEntry{}, Directories: []rpc.DirEntry{},
		TotalFiles: len(files), TotalDirectories: len(dirs),
		Pagination: rpc.Pagination{Limit: limit, Offset: p.Offset, HasMore: p.Offset+limit < len(dirs)+len(files)}}
	end := min(p.Offset+limit, len(dirs)+len(files))
	for i := p.Offset; i < end; i++ {
		if i < len(dirs) {
			res.Directories = append(res.Directories, dirEntry(t, dirs[i]))
		} else {
			res.Files = append(res.Files, fileEntry(t, files[i-len(dirs)], git))
		}
	}
	return res, nil
}

func dirEntry(t Target, e fs.DirEntry) rpc.DirEntry {
	d := rpc.DirEntry{Path: join(t.Rel, e.Name()), Name: e.Name()}
	abs := filepath.Join(t.Abs, e.Name())
	if info, err := e.Info(); err == nil {
		d.LastModified = rpc.FormatTime(info.ModTime())
	}
	// Direct children only: a recursive count or size would read the
	// whole tree below (node_modules…) for one listing.
	if inner, err := os.ReadDir(abs); err == nil {
		for _, c := range inner {
			switch {
			case c.Name() == ".git":
			case c.IsDir():
				d.FolderCount++
			default:
				d.FileCount++
			}
		}
	}
	return d
}

func fileEntry(t Target, e fs.DirEntry, git GitState) rpc.FileEntry {
	rel := join(t.Rel, e.Name())
	f := rpc.FileEntry{Path: rel, Name: e.Name(), Directory: t.Rel, Extension: Extension(e.Name()),
		IsSensitive: Sensitive(rel), IsSymlink: e.Type()&fs.ModeSymlink != 0}
	info, err := e.Info()
	if err == nil {
		f.SizeBytes = info.Size()
		f.ModifiedAt = rpc.FormatTime(info.ModTime())
		if info.Mode().IsRegular() {
			f.IsBinary = Sniff(filepath.Join(t.Abs, e.Name()))
		}
	}
	if git != nil {
		tracked, ignored := git.Tracked(rel)
		f.GitTracked, f.GitIgnored = &tracked, &ignored
	}
	return f
}
