package workspaces

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// Resolve lets through what lies inside the workspace, however named, and
// refuses with the wire's code what does not exist or leads out, through
// "..", an absolute path, or a symlink.
func TestResolveIsTheBoundary(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
	w := Workspace{ID: IDFor(ws), Path: ws}

	inside := map[string]string{
		"":                           ws,
		".":                          ws,
		"sub":                        filepath.Join(ws, "sub"),
		"sub/..":                     ws,
		"alias":                      filepath.Join(ws, "sub"),
		filepath.Join(ws, "sub"):     filepath.Join(ws, "sub"),
		filepath.Join(ws, "sub/../"): ws,
	}
	for in, want := range inside {
		got, err := w.Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	refused := map[string]int64{
		"..":             rpc.CodePathOutside,
		"../outside":     rpc.CodePathOutside,
		outside:          rpc.CodePathOutside,
		"escape":         rpc.CodePathOutside,
		"/":              rpc.CodePathOutside,
		"missing":        rpc.CodeInvalidPath,
		"sub/../../nope": rpc.CodeInvalidPath,
	}
	for in, code := range refused {
		_, err := w.Resolve(in)
		var re *rpc.Error
		if !errors.As(err, &re) || re.Code != code {
			t.Errorf("Resolve(%q): %v, want code %d", in, err, code)
		}
	}
}
