package contracttests

// The Explorer over the wire, as the iOS app calls it (its exact requests,
// decoded by its decoders' rules), and every bad input a client can send:
// each gets a clear JSON-RPC error and leaves the server answering.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// The app's shapes (IOS-APP.md, Files and search): path and name are all it
// requires; the rest is decoded when present.
type appFileEntry struct {
	Path        *string `json:"path" app:"required"`
	Name        *string `json:"name" app:"required"`
	Directory   *string `json:"directory"`
	Extension   *string `json:"extension"`
	SizeBytes   *int64  `json:"size_bytes"`
	ModifiedAt  *string `json:"modified_at"`
	IsBinary    *bool   `json:"is_binary"`
	IsSensitive *bool   `json:"is_sensitive"`
	GitTracked  *bool   `json:"git_tracked"`
	GitIgnored  *bool   `json:"git_ignored"`
	IsSymlink   *bool   `json:"is_symlink"`
	LineCount   *int    `json:"line_count"`
}

type appDirEntry struct {
	Path           *string `json:"path" app:"required"`
	Name           *string `json:"name" app:"required"`
	FolderCount    *int    `json:"folder_count"`
	FileCount      *int    `json:"file_count"`
	TotalSizeBytes *int64  `json:"total_size_bytes"`
	LastModified   *string `json:"last_modified"`
}

type appFilesList struct {
	Directory        *string        `json:"directory"`
	Files            []appFileEntry `json:"files"`
	Directories      []appDirEntry  `json:"directories"`
	TotalFiles       *int           `json:"total_files"`
	TotalDirectories *int           `json:"total_directories"`
	Pagination       *struct {
		Limit   *int  `json:"limit"`
		Offset  *int  `json:"offset"`
		HasMore *bool `json:"has_more"`
	} `json:"pagination"`
}

type appFile struct {
	Path      *string `json:"path"`
	Content   *string `json:"content"`
	Encoding  *string `json:"encoding"`
	Size      *int64  `json:"size"`
	Truncated *bool   `json:"truncated"`
}

type appSearch struct {
	Query   *string `json:"query"`
	Mode    *string `json:"mode"`
	Results []struct {
		Path       *string  `json:"path" app:"required"`
		Name       *string  `json:"name" app:"required"`
		Directory  *string  `json:"directory"`
		Extension  *string  `json:"extension"`
		SizeBytes  *int64   `json:"size_bytes"`
		ModifiedAt *string  `json:"modified_at"`
		IsBinary   *bool    `json:"is_binary"`
		MatchScore *float64 `json:"match_score"`
		LineCount  *int     `json:"line_count"`
	} `json:"results"`
	Total     *int     `json:"total"`
	ElapsedMS *float64 `json:"elapsed_ms"`
	HasMore   *bool    `json:"has_more"`
}

// explorerTree is a git work tree a user might open: tracked and ignored
// files, a secret, an image, a folder, a symlink leading out.
func explorerTree(t *testing.T) (ws, outside string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required (the project's setup installs it): %v", err)
	}
	root := tempDir(t)
	ws, outside = filepath.Join(root, "app"), filepath.Join(root, "outside")
	for rel, data := range map[string]string{
		"README.md": "# app\n", "src/main.go": "package main\n", ".gitignore": "build/\n", "build/out.bin": "x",
		".env": "TOKEN=s3cret\n", "img/logo.png": "\x89PNG\r\n\x1a\n\x00\x00",
	} {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "--", "README.md", "src", ".gitignore"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws, outside
}

func TestExplorerAsTheAppCallsIt(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir, _ := explorerTree(t)
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Call(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	})
	call := func(method string, params string, out any) {
		t.Helper()
		raw, err := c.Call(ctx, method, json.RawMessage(params))
		if err != nil {
			t.Fatalf("%s %s: %v", method, params, err)
		}
		appDecode(t, method, raw, out)
	}

	var root appFilesList
	call(rpc.MethodFilesList, `{"workspace_id":"`+w.ID+`","limit":500}`, &root)
	var dirs, names []string
	files := map[string]appFileEntry{}
	for _, d := range root.Directories {
		dirs = append(dirs, *d.Path)
	}
	for _, f := range root.Files {
		names = append(names, *f.Name)
		files[*f.Name] = f
	}
	if !slices.Equal(dirs, []string{"build", "img", "src"}) || !slices.Equal(names, []string{".env", ".gitignore", "README.md", "escape"}) {
		t.Errorf("root: directories %v, files %v (never .git)", dirs, names)
	}
	if f := files["README.md"]; !*f.GitTracked || *f.GitIgnored || *f.IsSensitive || *f.IsBinary || *f.SizeBytes != 6 {
		t.Errorf("README.md: tracked %v ignored %v sensitive %v binary %v size %d", *f.GitTracked, *f.GitIgnored,
			*f.IsSensitive, *f.IsBinary, *f.SizeBytes)
	}
	if f := files[".env"]; !*f.IsSensitive || *f.GitTracked || *f.GitIgnored {
		t.Errorf(".env: sensitive %v tracked %v ignored %v", *f.IsSensitive, *f.GitTracked, *f.GitIgnored)
	}
	if f := files["escape"]; !*f.IsSymlink {
		t.Errorf("escape is a symlink")
	}
	var build appFilesList
	call(rpc.MethodFilesList, `{"workspace_id":"`+w.ID+`","directory":"build","limit":500}`, &build)
	if len(build.Files) != 1 || *build.Files[0].Path != "build/out.bin" || !*build.Files[0].GitIgnored {
		t.Errorf("build/: %+v", build.Files)
	}

	var readme appFile
	call(rpc.MethodFileGet, `{"workspace_id":"`+w.ID+`","path":"README.md"}`, &readme)
	if *readme.Content != "# app\n" || *readme.Encoding != "utf-8" || *readme.Size != 6 || *readme.Truncated {
		t.Errorf("README.md: %q %s %d %v", *readme.Content, *readme.Encoding, *readme.Size, *readme.Truncated)
	}
	var logo appFile
	call(rpc.MethodFileGet, `{"workspace_id":"`+w.ID+`","path":"img/logo.png"}`, &logo)
	if b, err := base64.StdEncoding.DecodeString(*logo.Content); *logo.Encoding != "base64" || err != nil || string(b) != "\x89PNG\r\n\x1a\n\x00\x00" {
		t.Errorf("logo.png: %s %q %v", *logo.Encoding, *logo.Content, err)
	}

	// Search names no workspace: the one this connection subscribed to.
	c.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
	var found appSearch
	call(rpc.MethodSearch, `{"query":"main","mode":"fuzzy","limit":50,"exclude_binaries":true}`, &found)
	var hits []string
	for _, r := range found.Results {
		hits = append(hits, *r.Path)
	}
	if len(hits) == 0 || hits[0] != "src/main.go" || *found.Total != len(hits) {
		t.Errorf("search main: %v (total %d)", hits, *found.Total)
	}
	call(rpc.MethodSearch, `{"query":"out","mode":"fuzzy","limit":50,"exclude_binaries":true}`, &found)
	for _, r := range found.Results {
		if strings.HasPrefix(*r.Path, "build/") {
			t.Errorf("an ignored file found: %s", *r.Path)
		}
	}
}

func TestExplorerBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir, outside := explorerTree(t)
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Call(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	})
	for _, tc := range []struct {
		method string
		params any
		code   int64
	}{
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "../outside/secret.txt"}, rpc.CodePathOutside},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "src/../../outside/secret.txt"}, rpc.CodePathOutside},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "escape/secret.txt"}, rpc.CodePathOutside},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: filepath.Join(outside, "secret.txt")}, rpc.CodeInvalidPath},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: ".git/config"}, rpc.CodeInvalidPath},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "nope.txt"}, rpc.CodeInvalidPath},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "src"}, rpc.CodeInvalidPath},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID}, rpc.CodeInvalidParams},
		{rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: "ws_nope", Path: "README.md"}, rpc.CodeWorkspaceNotFound},
		{rpc.MethodFileGet, map[string]any{"workspace_id": w.ID, "path": 7}, rpc.CodeInvalidParams},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: w.ID, Directory: "escape"}, rpc.CodePathOutside},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: w.ID, Directory: ".."}, rpc.CodePathOutside},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: w.ID, Directory: ".git"}, rpc.CodeInvalidPath},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: w.ID, Directory: "README.md"}, rpc.CodeInvalidPath},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: w.ID, Limit: 100000}, rpc.CodeInvalidParams},
		{rpc.MethodFilesList, rpc.FilesListParams{}, rpc.CodeInvalidParams},
		{rpc.MethodFilesList, rpc.FilesListParams{WorkspaceID: "ws_nope"}, rpc.CodeWorkspaceNotFound},
		// A new connection has turned to no workspace yet.
		{rpc.MethodSearch, rpc.SearchParams{Query: "main"}, rpc.CodeInvalidParams},
		{rpc.MethodSearch, rpc.SearchParams{Query: "main", WorkspaceID: "ws_nope"}, rpc.CodeWorkspaceNotFound},
		{rpc.MethodSearch, rpc.SearchParams{WorkspaceID: w.ID}, rpc.CodeInvalidParams},
		{rpc.MethodSearch, rpc.SearchParams{Query: "x", Mode: "regex", WorkspaceID: w.ID}, rpc.CodeInvalidParams},
	} {
		_, err := c.Call(ctx, tc.method, tc.params)
		if err == nil || err.Code != tc.code {
			t.Errorf("%s %+v = %v, want code %d", tc.method, tc.params, err, tc.code)
		}
		if err != nil && strings.Contains(err.Message, "outside\n") {
			t.Errorf("%s leaked content: %v", tc.method, err)
		}
	}
	// Still answering.
	var ok rpc.FileGetResult
	c.MustCall(ctx, rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "README.md"}, &ok)
	if ok.Content != "# app\n" {
		t.Errorf("after the bad input: %+v", ok)
	}

	// A 200 MB file: its first MiB, at once.
	big := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(big, []byte(strings.Repeat("log line\n", 200_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	var huge rpc.FileGetResult
	c.MustCall(ctx, rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "huge.log"}, &huge)
	t.Logf("measured: a 200 MB file's capped read over the wire took %v", time.Since(began))
	if !huge.Truncated || huge.Size != 200<<20 || len(huge.Content) != 1<<20 || huge.Encoding != rpc.EncodingUTF8 {
		t.Errorf("200 MB: truncated %v size %d content %d %s", huge.Truncated, huge.Size, len(huge.Content), huge.Encoding)
	}
}

// status/get stays unanswered: a server-wide answer whose agent_state is
// not running makes the iOS app clear a live turn's spinner (IOS-APP.md).
func TestStatusGetIsNotAnswered(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	if _, err := c.Call(ctx, "status/get", nil); err == nil || err.Code != rpc.CodeMethodNotFound {
		t.Errorf("status/get = %v, want %d", err, rpc.CodeMethodNotFound)
	}
}

// initialize lists the workspace features, so that a client knows before
// calling; each is answered.
func TestInitializeListsFeatures(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	defer c.Close()
	for _, f := range []string{rpc.FeatureFiles, rpc.FeatureSearch, rpc.FeaturePresence, rpc.FeatureStatus, rpc.FeatureDiscover} {
		if !slices.Contains(init.Capabilities.Features, f) {
			t.Errorf("features %v lack %s", init.Capabilities.Features, f)
		}
	}
}
