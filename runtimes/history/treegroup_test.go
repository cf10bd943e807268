package history_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// TestGroupedSessions: in a tree whose sessions span several files
// (Group), Files finds a session's files of a directory in every folder,
// and again without reading a folder while List watches the tree and
// nothing in it changed (a write, or a Forget, makes it read them again);
// Has, Watch and Trash are of those files.
func TestGroupedSessions(t *testing.T) {
	root, ws, other := t.TempDir(), "/w/mine", "/w/other"
	writeInbox(t, root, "mine", idA, 1, ws, 2)
	a2 := writeInbox(t, root, "moved", idA, 2, ws, 3) // a folder Near does not name
	writeInbox(t, root, "mine", idB, 1, ws, 1)
	c := writeInbox(t, root, "elsewhere", idC, 1, other, 4)
	s := newInboxes(t, root)
	ctx := context.Background()
	files := func(dir, id string) string {
		t.Helper()
		found, err := s.Files(ctx, dir, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range found {
			out = append(out, fmt.Sprintf("%s:%d", filepath.Base(f.Path), len(f.X.Lines())))
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	note := func(id string, n, k int) string { return fmt.Sprintf("note-%s-%d.jsonl:%d", id, n, k) }

	if got, want := files(ws, idA), note(idA, 1, 2)+" "+note(idA, 2, 3); got != want {
		t.Fatalf("Files(ws, A) = %s, want %s", got, want)
	}
	if got := files(other, idA); got != "" {
		t.Errorf("Files(other, A) = %s, want none", got)
	}
	if _, err := s.Files(ctx, ws, "../a"); err == nil {
		t.Error("Files of an id that is no session's: no error")
	}
	if !s.Has(ctx, ws, idA) || s.Has(ctx, ws, idC) || !s.Has(ctx, other, idC) {
		t.Errorf("Has(ws, A) %v, Has(ws, C) %v, Has(other, C) %v; want true, false, true",
			s.Has(ctx, ws, idA), s.Has(ctx, ws, idC), s.Has(ctx, other, idC))
	}

	summaries(t, s, ws) // List watches the tree from now on
	files(ws, idA)
	walks := s.Stats().Walks
	if got := files(ws, idA); s.Stats().Walks != walks {
		t.Fatalf("Files of an unchanged, watched tree read it again (%s)", got)
	}
	appendTo(t, a2, lines(3, 1))
	if got, want := files(ws, idA), note(idA, 1, 2)+" "+note(idA, 2, 4); got != want || s.Stats().Walks != walks+1 {
		t.Fatalf("after a write: Files = %s (want %s) after %d walks (want 1)", got, want, s.Stats().Walks-walks)
	}
	s.Forget(a2)
	if files(ws, idA); s.Stats().Walks != walks+2 {
		t.Fatal("Files after a Forget did not read the tree")
	}

	changed := make(chan string, 64)
	w, err := s.Watch(ws, func(id string) { changed <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Another directory's session (its folder not watched), then ws's in
	// a folder other than Near's, then a new one in Near's.
	appendTo(t, c, lines(4, 1))
	appendTo(t, a2, lines(4, 1))
	writeInbox(t, root, "mine", idD, 1, ws, 1)
	for seen := map[string]bool{}; !seen[idA] || !seen[idD]; {
		select {
		case id := <-changed:
			if id != idA && id != idD {
				t.Fatalf("Watch(ws) named %s", id)
			}
			seen[id] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("writes not watched: %v", seen)
		}
	}

	bin := &dirBin{dir: t.TempDir()}
	if err := s.Trash(ctx, ws, idC, bin); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Trash of another directory's session: %v, want ErrNoSession", err)
	}
	if err := s.Trash(ctx, ws, idA, bin); err != nil {
		t.Fatal(err)
	}
	if binned, _ := os.ReadDir(bin.dir); len(binned) != 2 || s.Has(ctx, ws, idA) {
		t.Errorf("after Trash: %d files in the bin (want both of A's), Has %v", len(binned), s.Has(ctx, ws, idA))
	}
	if err := s.Trash(ctx, ws, idA, bin); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Trash again: %v, want ErrNoSession", err)
	}
}

func appendTo(t *testing.T, p, content string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}
