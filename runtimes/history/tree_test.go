package history_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// dated is the index of a made-up CLI that files its sessions by day,
// root/YYYY/MM/DD/note-<id>.jsonl, each beginning with {"dir":…}, the
// directory it ran in, then lines of {"id":…,"text":…} (messages).
type dated struct {
	lineindex.Index
	dir string
}

func (x *dated) add(b []byte) bool {
	var l struct{ Dir, ID string }
	if json.Unmarshal(b, &l) != nil {
		return false
	}
	x.dir = cmpOr(x.dir, l.Dir)
	return l.ID != ""
}

func (x *dated) Merge(y *dated)              { x.dir = cmpOr(x.dir, y.dir) }
func (x *dated) AppendFacts(b []byte) []byte { return lineindex.AppendString(b, x.dir) }
func (x *dated) Expect(part, total float64)  {}
func (x *dated) Finish()                     {}
func (x *dated) Size() int64                 { return int64(len(x.dir)) }
func (x *dated) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	if x.dir = r.String(); r.Bad || len(r.B) != 0 {
		return errors.New("bad dated facts")
	}
	return nil
}

// newDated is a Tree of dated sessions under root; created says the day
// of the ids it knows.
func newDated(t *testing.T, root string, created map[string]time.Time, o history.Options) *history.Tree[dated, *dated] {
	read := func(id string, b []byte) (rpc.Message, bool) {
		var l noteLine
		if json.Unmarshal(b, &l) != nil || l.ID == "" {
			return rpc.Message{}, false
		}
		return rpc.Message{ID: l.ID, SessionID: id, Type: rpc.MessageType("assistant")}, true
	}
	s := history.NewTree(history.Format[dated, *dated]{
		What:     "dated file",
		Version:  "dated-1",
		Add:      (*dated).add,
		Describe: func(x *dated) (string, string) { return x.dir, "" },
		Message:  func(id string, _ int64, b []byte) (rpc.Message, bool) { return read(id, b) },
		Counted:  func(b []byte) bool { return strings.HasPrefix(string(b), `{"id":`) },
		Tailed: func(id string, _ int64, b []byte) (rpc.Message, bool, error) {
			m, ok := read(id, b)
			return m, ok, nil
		},
	}, history.DateTree[*dated]{
		Root: root,
		ID: func(name string) string {
			id, _ := strings.CutPrefix(strings.TrimSuffix(name, ".jsonl"), "note-")
			if runtimes.ValidSessionID(id) != nil || !strings.HasPrefix(name, "note-") {
				return ""
			}
			return id
		},
		Dir: func(x *dated) string { return x.dir },
		Created: func(id string) (time.Time, bool) {
			day, ok := created[id]
			return day, ok
		},
	}, o)
	t.Cleanup(func() { s.Close() })
	return s
}

// writeDated writes session id of dir, dated day, with n messages.
func writeDated(t *testing.T, root string, day time.Time, id, dir string, n int) string {
	t.Helper()
	d := filepath.Join(root, day.Format("2006"), day.Format("01"), day.Format("02"))
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, "note-"+id+".jsonl")
	write(t, p, fmt.Sprintf(`{"dir":%q}`+"\n", dir)+lines(0, n), day)
	return p
}

const (
	idC = "00000000-0000-4000-8000-00000000000c"
	idD = "00000000-0000-4000-8000-00000000000d"
)

// TestTreeListLocateWatch: a format filed by day gets the whole of
// runtimes.Transcripts from a DateTree: each directory lists the sessions
// that record it, newest first; a session is found in the folder of its
// creation day without a walk, else by one; Watch names the sessions of
// its directory written today; Trash takes one away.
func TestTreeListLocateWatch(t *testing.T) {
	root, ws1, ws2 := t.TempDir(), t.TempDir(), t.TempDir()
	now := time.Now()
	older := time.Date(2025, 1, 2, 12, 0, 0, 0, time.Local)
	writeDated(t, root, now, idA, ws1, 3)
	writeDated(t, root, older, idB, ws2, 1)
	writeDated(t, root, older.AddDate(0, 0, 1), idC, ws1, 2)
	ctx := context.Background()
	s := newDated(t, root, map[string]time.Time{idA: now}, history.Options{Watcher: fswatch.New(fswatch.Config{})})

	if p, ok := s.Locate(idA); !ok || s.Stats().Walks != 0 {
		t.Errorf("Locate(A) = %s, %v after %d walks; want its creation day's folder, no walk", p, ok, s.Stats().Walks)
	}
	if _, ok := s.Locate(idB); !ok || s.Stats().Walks != 1 {
		t.Errorf("Locate(B): %v after %d walks; want found by one walk", ok, s.Stats().Walks)
	}
	listed := func(dir string) string {
		t.Helper()
		list, err := s.List(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range list {
			out = append(out, fmt.Sprintf("%s %d", l.SessionID[len(l.SessionID)-1:], l.MessageCount))
		}
		return strings.Join(out, " ")
	}
	if got := listed(ws1); got != "a 3 c 2" {
		t.Errorf("List(ws1) = %s, want a 3 c 2", got)
	}
	if got := listed(ws2); got != "b 1" {
		t.Errorf("List(ws2) = %s, want b 1", got)
	}
	if _, _, err := s.Messages(ctx, ws2, idA, 0, 10, true); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Messages of another directory's session: %v, want ErrNoSession", err)
	}
	if page, total, err := s.Messages(ctx, ws1, idA, 0, 2, true); err != nil || total != 3 || ids(page) != "m2 m1" {
		t.Errorf("page %q of %d, %v; want m2 m1 of 3", ids(page), total, err)
	}

	changed := make(chan string, 64)
	w, err := s.Watch(ws1, func(id string) { changed <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Another directory's session written today, then one of ws1: only
	// ws1's is named (the watcher reports in order).
	writeDated(t, root, now, idD, ws2, 1)
	writeDated(t, root, now, idA, ws1, 4)
	for id := ""; id != idA; {
		select {
		case id = <-changed:
			if id != idA {
				t.Fatalf("Watch(ws1) named %s", id)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the write was not watched")
		}
	}

	bin := &dirBin{dir: t.TempDir()}
	if err := s.Trash(ctx, ws1, idC, bin); err != nil {
		t.Fatal(err)
	}
	if got := listed(ws1); got != "a 4" || s.Has(ctx, ws1, idC) {
		t.Errorf("after Trash: List(ws1) = %s, Has %v", got, s.Has(ctx, ws1, idC))
	}
	if err := s.Trash(ctx, ws2, idA, bin); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Trash of another directory's session: %v, want ErrNoSession", err)
	}
}
