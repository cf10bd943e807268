package workspaces

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func code(err error) int64 {
	var e *rpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestAddIsIdempotentAndCanonical(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "proj")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(root, "state", "workspaces.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Add(real, "", false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Add(link+"/", "other name", false)
	if err != nil {
		t.Fatal(err)
	}
	canon, _ := filepath.EvalSymlinks(real)
	if a.ID != b.ID || b.Path != canon || a.Name != "proj" {
		t.Fatalf("same directory gave %+v and %+v", a, b)
	}
	if got := len(s.List()); got != 1 {
		t.Fatalf("List has %d workspaces, want 1", got)
	}
}

func TestAddRejectsBadPaths(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := Open(filepath.Join(root, "ws.json"))
	for _, tc := range []struct {
		path string
		code int64
	}{
		{"", rpc.CodeInvalidParams},
		{"relative/dir", rpc.CodeInvalidPath},
		{filepath.Join(root, "missing"), rpc.CodeInvalidPath},
		{file, rpc.CodeInvalidPath},
	} {
		if _, err := s.Add(tc.path, "", false); code(err) != tc.code {
			t.Errorf("Add(%q) = %v, want code %d", tc.path, err, tc.code)
		}
	}
	created, err := s.Add(filepath.Join(root, "new", "dir"), "", true)
	if err != nil {
		t.Fatalf("create_if_missing: %v", err)
	}
	if fi, err := os.Stat(created.Path); err != nil || !fi.IsDir() {
		t.Fatalf("directory not created: %v", err)
	}
}

func TestPersistedAndRemoved(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "ws.json")
	s, _ := Open(file)
	w, err := s.Add(root, "mine", false)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, mode %v", err, fi.Mode())
	}
	again, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.Get(w.ID)
	if err != nil || got != w {
		t.Fatalf("after reopen Get = %+v, %v; want %+v", got, err, w)
	}
	if err := again.Remove(w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Get(w.ID); code(err) != rpc.CodeWorkspaceNotFound {
		t.Fatalf("Get after Remove = %v", err)
	}
	if err := again.Remove(w.ID); code(err) != rpc.CodeWorkspaceNotFound {
		t.Fatalf("second Remove = %v", err)
	}
	third, _ := Open(file)
	if len(third.List()) != 0 {
		t.Fatal("removal not persisted")
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal("Remove touched the directory")
	}
}

func TestContains(t *testing.T) {
	root := t.TempDir()
	canon, _ := filepath.EvalSymlinks(root)
	w := Workspace{Path: canon}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	escape := filepath.Join(root, "escape")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{root: true, sub: true, outside: false, escape: false,
		filepath.Join(root, ".."): false} {
		if got := w.Contains(path); got != want {
			t.Errorf("Contains(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestIDStableForPath(t *testing.T) {
	if IDFor("/a/b") != IDFor("/a/b") || IDFor("/a/b") == IDFor("/a/c") {
		t.Fatal("ids must be a function of the path")
	}
}

func TestHomeRelativePathCreated(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s, _ := Open(filepath.Join(t.TempDir(), "ws.json"))
	w, err := s.Add("~/code/new", "", true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(home, "code", "new"))
	if w.Path != want {
		t.Fatalf("path = %s, want %s", w.Path, want)
	}
	if _, err := os.Stat("~"); err == nil {
		t.Fatal("a literal ~ directory was created")
	}
}

// "~" alone is the home directory, as "~/x" is a directory in it; "~user"
// is a relative path, refused as one.
func TestTildeAloneIsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s, _ := Open(filepath.Join(t.TempDir(), "ws.json"))
	w, err := s.Add("~", "", false)
	if err != nil {
		t.Fatalf("add ~: %v", err)
	}
	want, _ := filepath.EvalSymlinks(home)
	if w.Path != want {
		t.Fatalf("path = %s, want %s", w.Path, want)
	}
	if err := CheckDir("~"); err != nil {
		t.Fatalf("CheckDir(~): %v", err)
	}
	if _, err := s.Add("~nobody", "", false); err == nil {
		t.Fatal("~nobody was accepted")
	}
}

// CheckDir refuses what Add refuses, with the same error, and adds nothing.
func TestCheckDirAgreesWithAdd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := Open(filepath.Join(t.TempDir(), "ws.json"))
	for _, p := range []string{filepath.Join(dir, "missing"), file} {
		_, addErr := s.Add(p, "", false)
		checkErr := CheckDir(p)
		if addErr == nil || checkErr == nil || addErr.Error() != checkErr.Error() {
			t.Errorf("%s: Add said %v, CheckDir said %v", p, addErr, checkErr)
		}
	}
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
	if len(s.List()) != 0 {
		t.Fatal("CheckDir added a workspace")
	}
}
