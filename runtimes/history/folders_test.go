package history_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes/history"
)

// TestFoldersListEachFolder: in a folder per directory, each directory's
// List reads its own folder only and keeps its own watch: a write in one
// folder makes the next List of its directory read it again, and leaves
// the other's listing as it was, unread; nor does a List forget the
// indexes of another folder's files.
func TestFoldersListEachFolder(t *testing.T) {
	s, d := newNotes(t, history.Options{})
	other := filepath.Join(filepath.Dir(d), "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d, idA+".notes"), lines(0, 2), time.Now())
	pB := filepath.Join(other, idB+".notes")
	write(t, pB, lines(0, 3), time.Now())
	ctx := context.Background()
	counts := func(dir string) string {
		t.Helper()
		list, err := s.List(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, l := range list {
			out += fmt.Sprintf("%s:%d ", l.SessionID, l.MessageCount)
		}
		return out
	}
	if got := counts("/any/ws"); got != idA+":2 " {
		t.Fatalf("List(ws) = %q", got)
	}
	if got := counts("/any/other"); got != idB+":3 " {
		t.Fatalf("List(other) = %q", got)
	}
	st := s.Stats()
	if st.DirReads != 2 || st.Watched != 2 || st.FullScans != 2 {
		t.Fatalf("after one List of each: %d folder reads, %d watched, %d scans; want 2, 2, 2", st.DirReads, st.Watched, st.FullScans)
	}
	counts("/any/ws")
	counts("/any/other")
	if reads := s.Stats().DirReads; reads != 2 {
		t.Fatalf("unchanged folders read again: %d reads", reads)
	}
	appendTo := func(p, s string) {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(pB, lines(3, 1))
	if got := counts("/any/other"); got != idB+":4 " {
		t.Fatalf("List(other) after a write = %q", got)
	}
	if got := counts("/any/ws"); got != idA+":2 " || s.Stats().DirReads != 3 {
		t.Fatalf("List(ws) = %q after %d reads; want ws's listing kept, other's folder read once more", got, s.Stats().DirReads)
	}
	appendTo(filepath.Join(d, idA+".notes"), lines(2, 1))
	if got := counts("/any/ws"); got != idA+":3 " || s.Stats().FullScans != 2 {
		t.Fatalf("List(ws) after a write = %q after %d full scans; want A read on from its old end", got, s.Stats().FullScans)
	}
}
