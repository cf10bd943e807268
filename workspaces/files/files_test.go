package files

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// tree makes a workspace with what a user's project holds: text, a
// binary, secrets, a .git, a symlink inside and one out, a subdirectory.
func tree(t *testing.T) (workspaces.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	write := func(rel string, data []byte) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", []byte("package main\n"))
	write("sub/notes.txt", []byte("héllo\n"))
	write("sub/deeper/x.md", []byte("# x\n"))
	write(".env", []byte("TOKEN=s3cret\n"))
	write("certs/server.pem", []byte("-----BEGIN PRIVATE KEY-----\n"))
	write("logo.png", []byte{0x89, 'P', 'N', 'G', 0, 0, 0, 13, 0xff})
	write(".git/config", []byte("[remote \"origin\"]\n\turl = https://user:pw@example.com/r.git\n"))
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"escape": outside, "escape.txt": filepath.Join(outside, "secret.txt"),
		"alias.txt": filepath.Join(ws, "main.go")} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return workspaces.Workspace{ID: "ws_test", Name: "ws", Path: ws}, outside
}

func code(err error) int64 {
	var e *rpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Every way out of the workspace, or into .git, is refused with the wire's
// code; nothing outside is read.
func TestPathsStayInside(t *testing.T) {
	w, outside := tree(t)
	for _, c := range []struct {
		path string
		code int64
	}{
		{"..", rpc.CodePathOutside},
		{"../outside/secret.txt", rpc.CodePathOutside},
		{"sub/../../outside/secret.txt", rpc.CodePathOutside},
		{"escape/secret.txt", rpc.CodePathOutside},
		{"escape.txt", rpc.CodePathOutside},
		{filepath.Join(outside, "secret.txt"), rpc.CodeInvalidPath},
		{filepath.Join(w.Path, "main.go"), rpc.CodeInvalidPath},
		{"~/x", rpc.CodeInvalidPath},
		{".git/config", rpc.CodeInvalidPath},
		{"sub/../.git/config", rpc.CodeInvalidPath},
		{"missing.txt", rpc.CodeInvalidPath},
		{"main.go\x00.txt", rpc.CodeInvalidPath},
	} {
		res, err := Read(w, c.path)
		if code(err) != c.code {
			t.Errorf("Read(%q) = %+v, %v; want code %d", c.path, res, err, c.code)
		}
		if strings.Contains(res.Content, "outside") || strings.Contains(res.Content, "pw@") {
			t.Errorf("Read(%q) served %q", c.path, res.Content)
		}
	}
	// Inside, however named.
	for _, p := range []string{"main.go", "./main.go", "sub/../main.go", "alias.txt"} {
		res, err := Read(w, p)
		if err != nil || res.Content != "package main\n" || res.Path != "main.go" {
			t.Errorf("Read(%q) = %+v, %v", p, res, err)
		}
	}
	if _, err := List(w, rpc.FilesListParams{Directory: "escape"}, nil); code(err) != rpc.CodePathOutside {
		t.Errorf("listing a symlink out: %v", err)
	}
	if _, err := List(w, rpc.FilesListParams{Directory: ".git"}, nil); code(err) != rpc.CodeInvalidPath {
		t.Errorf("listing .git: %v", err)
	}
}

func TestReadTextAndBinary(t *testing.T) {
	w, _ := tree(t)
	res, err := Read(w, "sub/notes.txt")
	if err != nil || res.Encoding != rpc.EncodingUTF8 || res.Content != "héllo\n" || res.Size != 7 || res.Truncated || res.IsBinary {
		t.Errorf("text = %+v, %v", res, err)
	}
	res, err = Read(w, "logo.png")
	if err != nil || res.Encoding != rpc.EncodingBase64 || !res.IsBinary || res.Truncated {
		t.Fatalf("binary = %+v, %v", res, err)
	}
	if b, err := base64.StdEncoding.DecodeString(res.Content); err != nil || !bytes.Equal(b, []byte{0x89, 'P', 'N', 'G', 0, 0, 0, 13, 0xff}) {
		t.Errorf("binary content %v, %v", b, err)
	}
	if res, err := Read(w, ".env"); err != nil || !res.IsSensitive || res.Content != "TOKEN=s3cret\n" {
		t.Errorf(".env = %+v, %v (served, flagged)", res, err)
	}
	if _, err := Read(w, "sub"); code(err) != rpc.CodeInvalidPath {
		t.Errorf("a directory: %v", err)
	}
	fifo := filepath.Join(w.Path, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(w, "pipe"); code(err) != rpc.CodeInvalidPath {
		t.Errorf("a FIFO (must not block): %v", err)
	}
}

// A 200 MB file costs one capped read: the first MiB, cut at a character.
func TestReadCapsABigFile(t *testing.T) {
	w, _ := tree(t)
	p := filepath.Join(w.Path, "big.log")
	// Text past the cap, a two-byte character across it, then a sparse
	// tail up to 200 MB (no disk, no time to write).
	head := strings.Repeat("a", MaxContent-1) + "é" + strings.Repeat("line\n", 1000)
	if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	const size = 200 << 20
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	res, err := Read(w, "big.log")
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Size != size || res.Encoding != rpc.EncodingUTF8 || !utf8.ValidString(res.Content) ||
		len(res.Content) != MaxContent-1 {
		t.Errorf("big file: truncated %v size %d encoding %s valid %v len %d", res.Truncated, res.Size, res.Encoding,
			utf8.ValidString(res.Content), len(res.Content))
	}
	t.Logf("measured: a 200 MB file read in %v", took)
	// Zeros: binary, base64 of exactly the cap.
	z := filepath.Join(w.Path, "zeros.bin")
	if err := os.WriteFile(z, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(z, size); err != nil {
		t.Fatal(err)
	}
	res, err = Read(w, "zeros.bin")
	if err != nil || !res.Truncated || !res.IsBinary || base64.StdEncoding.DecodedLen(len(res.Content)) < MaxContent {
		t.Errorf("zeros: %v truncated %v binary %v content %d", err, res.Truncated, res.IsBinary, len(res.Content))
	}
}

func TestListDirectory(t *testing.T) {
	w, _ := tree(t)
	res, err := List(w, rpc.FilesListParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs, names []string
	for _, d := range res.Directories {
		dirs = append(dirs, d.Path)
	}
	byName := map[string]rpc.FileEntry{}
	for _, f := range res.Files {
		names = append(names, f.Name)
		byName[f.Name] = f
	}
	if strings.Join(dirs, ",") != "certs,sub" || strings.Join(names, ",") != ".env,alias.txt,escape,escape.txt,logo.png,main.go" {
		t.Errorf("root: directories %v, files %v (.git must be left out; a symlink to a directory is a file)", dirs, names)
	}
	if res.TotalDirectories != 2 || res.TotalFiles != 6 || res.Pagination.HasMore || res.Directory != "" {
		t.Errorf("root totals %+v", res)
	}
	if f := byName["main.go"]; f.Path != "main.go" || f.Extension != "go" || f.SizeBytes != 13 || f.IsBinary ||
		f.IsSensitive || f.IsSymlink || f.ModifiedAt == "" || f.GitTracked != nil {
		t.Errorf("main.go = %+v", f)
	}
	if f := byName[".env"]; !f.IsSensitive || f.Extension != "" {
		t.Errorf(".env = %+v", f)
	}
	if f := byName["logo.png"]; !f.IsBinary {
		t.Errorf("logo.png = %+v", f)
	}
	if f := byName["escape"]; !f.IsSymlink {
		t.Errorf("escape = %+v", f)
	}
	if d := res.Directories[1]; d.Name != "sub" || d.FolderCount != 1 || d.FileCount != 1 {
		t.Errorf("sub = %+v", d)
	}
	sub, err := List(w, rpc.FilesListParams{Directory: "sub"}, nil)
	if err != nil || sub.Directory != "sub" || len(sub.Files) != 1 || sub.Files[0].Path != "sub/notes.txt" ||
		sub.Files[0].Directory != "sub" || len(sub.Directories) != 1 || sub.Directories[0].Path != "sub/deeper" {
		t.Errorf("sub = %+v, %v", sub, err)
	}
	// Pages: directories first, then files.
	p1, _ := List(w, rpc.FilesListParams{Limit: 3}, nil)
	p2, _ := List(w, rpc.FilesListParams{Limit: 3, Offset: 3}, nil)
	p3, _ := List(w, rpc.FilesListParams{Limit: 3, Offset: 6}, nil)
	if len(p1.Directories) != 2 || len(p1.Files) != 1 || !p1.Pagination.HasMore || len(p2.Files) != 3 ||
		!p2.Pagination.HasMore || len(p3.Files) != 2 || p3.Pagination.HasMore {
		t.Errorf("pages %+v / %+v / %+v", p1, p2, p3)
	}
	for _, bad := range []rpc.FilesListParams{{Limit: -1}, {Limit: 5000}, {Offset: -1}} {
		if _, err := List(w, bad, nil); code(err) != rpc.CodeInvalidParams {
			t.Errorf("List(%+v): %v", bad, err)
		}
	}
	if _, err := List(w, rpc.FilesListParams{Directory: "main.go"}, nil); code(err) != rpc.CodeInvalidPath {
		t.Errorf("listing a file: %v", err)
	}
}

type fakeGit map[string]bool

func (g fakeGit) Tracked(rel string) (bool, bool) { t, ok := g[rel]; return t, !ok }

func TestListGitFlags(t *testing.T) {
	w, _ := tree(t)
	res, err := List(w, rpc.FilesListParams{Directory: "sub"}, fakeGit{"sub/notes.txt": true})
	if err != nil || len(res.Files) != 1 {
		t.Fatal(res, err)
	}
	if f := res.Files[0]; f.GitTracked == nil || !*f.GitTracked || f.GitIgnored == nil || *f.GitIgnored {
		t.Errorf("tracked file: %+v", f)
	}
}

func TestSensitive(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "app/.env.local": true, ".env.production": true, ".env.example": false, "x/.env.sample": false,
		"server.pem": true, "tls/server.KEY": true, "id_rsa": true, "home/.ssh/id_ed25519": true, "id_rsa.pub": false,
		".npmrc": true, ".netrc": true, "credentials.json": true, "prod.tfstate": true,
		"main.go": false, "README.md": false, "keys.go": false, "environment.ts": false, "id_card.png": false,
	} {
		if got := Sensitive(p); got != want {
			t.Errorf("Sensitive(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestBinary(t *testing.T) {
	cut := []byte(strings.Repeat("a", 10) + "é")[:11] // a character cut by the end of the sample
	for _, c := range []struct {
		data []byte
		more bool
		want bool
	}{
		{[]byte("plain text\n"), false, false},
		{[]byte("nul\x00"), false, true},
		{[]byte{0xff, 0xfe, 'a'}, false, true},
		{cut, true, false},
		{cut, false, true},
		{[]byte{}, false, false},
	} {
		if got := Binary(c.data, c.more); got != c.want {
			t.Errorf("Binary(%q, %v) = %v", c.data, c.more, got)
		}
	}
}
