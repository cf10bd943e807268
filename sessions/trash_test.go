package sessions

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// TestDeleteTwiceKeepsBoth: two deletes of one session id in quick
// succession (the session recreated in between) leave two files in the
// trash with both contents. With one-second names and a replacing rename the
// second delete destroyed the first transcript.
func TestDeleteTwiceKeepsBoth(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	path := filepath.Join(a.dir, "s1.jsonl")
	want := []string{"first\n", "second\n"}
	for _, content := range want {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Delete(context.Background(), rpc.SessionRefParams{WorkspaceID: wsID, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(e.cfg.TrashDir, "mem", wsID, "*s1.jsonl"))
	var got []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("trash holds %q (files %v), want %q", got, matches, want)
	}
}

// TestMoveNeverReplaces: every way of moving to the trash fails on an
// existing name and leaves both files as they were.
func TestMoveNeverReplaces(t *testing.T) {
	for name, move := range map[string]func(src, dst string) error{
		"renameat2 or link": moveNoReplace,
		"copy":              copyNoReplace,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
			for p, c := range map[string]string{src: "new", dst: "old"} {
				if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := move(src, dst); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("move onto an existing file: %v, want ErrExist", err)
			}
			for p, c := range map[string]string{src: "new", dst: "old"} {
				if b, err := os.ReadFile(p); err != nil || string(b) != c {
					t.Fatalf("%s holds %q, %v; want %q", p, b, err, c)
				}
			}
			other := filepath.Join(dir, "other")
			if err := move(src, other); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(other); err != nil || string(b) != "new" {
				t.Fatalf("moved file holds %q, %v", b, err)
			}
			if _, err := os.Stat(src); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("source still there: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".trash-*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

func TestDeleteMovesTranscriptToTrash(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	path := filepath.Join(a.dir, "s1.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Delete(context.Background(), rpc.SessionRefParams{WorkspaceID: wsID, SessionID: "../x"}); !isCode(err, rpc.CodeInvalidParams) {
		t.Fatalf("traversal id = %v", err)
	}
	if _, err := e.Delete(context.Background(), rpc.SessionRefParams{WorkspaceID: wsID, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("transcript still in place")
	}
	matches, _ := filepath.Glob(filepath.Join(e.cfg.TrashDir, "mem", wsID, "*s1.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("trash holds %v", matches)
	}
}
