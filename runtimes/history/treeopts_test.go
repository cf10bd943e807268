package history_test

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// newInboxes is a Tree of dated sessions kept as a made-up CLI keeps them
// the way Gemini does: root/<project>/inbox/note-<id>-<n>.jsonl, each
// file recording "h:"+its directory, a session's files grouped into one
// summary (their messages counted together).
func newInboxes(t *testing.T, root string) *history.Tree[dated, *dated] {
	s := history.NewTree(history.Format[dated, *dated]{
		What: "inbox file", Version: "inbox-1", Add: (*dated).add,
		Describe: func(x *dated) (string, string) { return x.dir, "" },
	}, history.DateTree[*dated]{
		Root: root,
		ID: func(name string) string {
			rest, _ := strings.CutPrefix(name, "note-")
			id, _, _ := strings.Cut(rest, ".")
			if len(id) < 3 || runtimes.ValidSessionID(id[:len(id)-2]) != nil {
				return ""
			}
			return id[:len(id)-2] // without -<n>
		},
		Dir:   func(x *dated) string { return x.dir },
		Depth: 2,
		Enter: func(level int, de fs.DirEntry) bool {
			return de.IsDir() && (level == 1 || de.Name() == "inbox")
		},
		Match: func(dir string) func(string) bool { return func(rec string) bool { return rec == "h:"+dir } },
		Group: func(files []history.File[*dated]) []runtimes.Summary {
			byID := map[string]*runtimes.Summary{}
			var out []runtimes.Summary
			for _, f := range files {
				s := byID[f.ID]
				if s == nil {
					s = &runtimes.Summary{SessionID: f.ID}
					byID[f.ID] = s
				}
				s.MessageCount += len(f.X.Lines())
			}
			for _, s := range byID {
				out = append(out, *s)
			}
			slices.SortFunc(out, func(a, b runtimes.Summary) int { return cmp.Compare(a.SessionID, b.SessionID) })
			return out
		},
		HeadMin:  -1,
		Near:     func(dir string) string { return filepath.Join(root, filepath.Base(dir), "inbox") },
		Rewrites: true,
	}, history.Options{})
	t.Cleanup(func() { s.Close() })
	return s
}

// writeInbox writes file n of session id, recording dir, with k messages.
func writeInbox(t *testing.T, root, project, id string, n int, dir string, k int) string {
	t.Helper()
	d := filepath.Join(root, project, "inbox")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, fmt.Sprintf("note-%s-%d.jsonl", id, n))
	write(t, p, fmt.Sprintf(`{"dir":%q}`+"\n", "h:"+dir)+lines(0, k), time.Now())
	return p
}

func summaries(t *testing.T, s *history.Tree[dated, *dated], dir string) string {
	t.Helper()
	list, err := s.List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range list {
		fmt.Fprintf(&b, "%s:%d ", l.SessionID, l.MessageCount)
	}
	return b.String()
}

// TestTreeOptions: a tree of another shape than a date tree, through
// DateTree's options. List goes into the folders Enter names only, keeps
// the files whose recorded value Match takes for the directory, groups a
// session's files (Group), reads the first line of another project's
// file but not of those Near names, sees a file rewritten in place with
// the same size (Rewrites), and keeps its first result (the tree's
// folders are watched before the first read).
func TestTreeOptions(t *testing.T) {
	root, ws, other := t.TempDir(), "/w/mine", "/w/other"
	writeInbox(t, root, "mine", idA, 1, ws, 2)
	writeInbox(t, root, "mine", idA, 2, ws, 3)
	writeInbox(t, root, "mine", idB, 1, ws, 1)
	moved := writeInbox(t, root, "elsewhere", idC, 1, other, 4)
	// Not an inbox: not listed, though it records ws.
	if err := os.MkdirAll(filepath.Join(root, "mine", "outbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "mine", "outbox", "note-"+idD+"-1.jsonl"), `{"dir":"h:/w/mine"}`+"\n"+lines(0, 1), time.Now())
	s := newInboxes(t, root)
	want := idA + ":5 " + idB + ":1 "
	if got := summaries(t, s, ws); got != want {
		t.Fatalf("List = %q, want %q", got, want)
	}
	st := s.Stats()
	if st.FullScans != 3 || st.HeadBytes == 0 {
		t.Fatalf("first List: %d files indexed (want the 3 of ws), %d bytes of first lines (want the other project's)", st.FullScans, st.HeadBytes)
	}
	if got := summaries(t, s, ws); got != want || s.Stats().Walks != st.Walks {
		t.Fatalf("second List of an unchanged tree: %q after %d more walks", got, s.Stats().Walks-st.Walks)
	}
	// The other project's file rewritten in place, the same size, now
	// recording ws: List sees it move.
	b, err := os.ReadFile(moved)
	if err != nil {
		t.Fatal(err)
	}
	rewritten := strings.Replace(string(b), "h:"+other, "h:"+ws[:len(ws)-1]+"X", 1)
	ws2 := ws[:len(ws)-1] + "X"
	write(t, moved, rewritten, time.Now().Add(time.Minute))
	if got := summaries(t, s, ws2); got != idC+":4 " {
		t.Fatalf("List(%s) after the rewrite = %q", ws2, got)
	}
	if got := summaries(t, s, other); got != "" {
		t.Fatalf("List(other) after the rewrite = %q", got)
	}
}
