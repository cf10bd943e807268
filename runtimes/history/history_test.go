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

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// notes is the format of a made-up CLI whose sessions are lines of
// {"id":…,"text":…} (a message) or {"title":…} (a title), one
// <id>.notes file per session in a folder per directory: everything a
// runtime writes to have history.
type notes struct {
	lineindex.Index
	title, first string
}

type noteLine struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Title string `json:"title"`
}

func (x *notes) add(b []byte) bool {
	var l noteLine
	if json.Unmarshal(b, &l) != nil {
		// A damaged message line is still counted, as a fast reader that
		// looks only at its start would count it.
		return strings.HasPrefix(string(b), `{"id":`)
	}
	if l.Title != "" {
		x.title = l.Title
	}
	if l.ID != "" && x.first == "" {
		x.first = l.Text
	}
	return l.ID != ""
}

// Merge takes in the index of the part of a big file after x's: a later
// title wins, the first message stays.
func (x *notes) Merge(y *notes) {
	x.title = cmpOr(y.title, x.title)
	x.first = cmpOr(x.first, y.first)
}

// AppendFacts and ReadFacts persist what x gathered with its index.
func (x *notes) AppendFacts(b []byte) []byte {
	return lineindex.AppendString(lineindex.AppendString(b, x.title), x.first)
}

// Expect, Finish and Size: x sizes nothing ahead, puts nothing off, and
// takes its two strings.
func (x *notes) Expect(part, total float64) {}
func (x *notes) Finish()                    {}
func (x *notes) Size() int64                { return int64(len(x.title) + len(x.first)) }

func (x *notes) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	x.title, x.first = r.String(), r.String()
	if r.Bad || len(r.B) != 0 {
		return errors.New("bad notes facts")
	}
	return nil
}

func notesFormat() history.Format[notes, *notes] {
	read := func(id string, b []byte) (rpc.Message, bool) {
		var l noteLine
		if json.Unmarshal(b, &l) != nil || l.ID == "" {
			return rpc.Message{}, false
		}
		return rpc.Message{ID: l.ID, SessionID: id, Type: rpc.MessageType("assistant"),
			Message: rpc.MessageBody{Role: "assistant", Content: []rpc.ContentBlock{{Type: "text", Text: l.Text}}}}, true
	}
	return history.Format[notes, *notes]{
		What:     "notes file",
		Version:  "notes-1",
		Add:      (*notes).add,
		Describe: func(x *notes) (string, string) { return cmpOr(x.title, x.first), "" },
		Message:  func(id string, _ int64, b []byte) (rpc.Message, bool) { return read(id, b) },
		Counted:  func(b []byte) bool { return strings.HasPrefix(string(b), `{"id":`) },
		Tailed: func(id string, _ int64, b []byte) (rpc.Message, bool, error) {
			m, ok := read(id, b)
			return m, ok, nil
		},
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

const (
	idA = "00000000-0000-4000-8000-00000000000a"
	idB = "00000000-0000-4000-8000-00000000000b"
)

func newNotes(t *testing.T, o history.Options) (*history.Folders[notes, *notes], string) {
	root := t.TempDir()
	s := history.NewFolders(notesFormat(), history.Layout{
		Folder: func(dir string) string { return filepath.Join(root, filepath.Base(dir)) },
		Ext:    ".notes",
		IsID:   func(id string) bool { return uuid.Validate(id) == nil },
	}, o)
	t.Cleanup(func() { s.Close() })
	d := filepath.Join(root, "ws")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return s, d
}

func write(t *testing.T, p, content string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func lines(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, `{"id":"m%d","text":"note %d"}`+"\n", i, i)
	}
	return b.String()
}

func ids(ms []rpc.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return strings.Join(out, " ")
}

// TestFoldersListAndPage: a format of a few lines gets the whole of
// runtimes.Transcripts: a listing newest first with counts and titles
// (other files left out), and pages either way.
func TestFoldersListAndPage(t *testing.T) {
	s, d := newNotes(t, history.Options{})
	base := time.Now().Add(-time.Hour)
	write(t, filepath.Join(d, idA+".notes"), lines(0, 5)+`{"title":"named"}`+"\n", base)
	write(t, filepath.Join(d, idB+".notes"), lines(0, 2), base.Add(time.Minute))
	write(t, filepath.Join(d, "not-a-session.notes"), lines(0, 1), base)
	write(t, filepath.Join(d, idA+".txt"), lines(0, 1), base)
	ctx := context.Background()
	list, err := s.List(ctx, "/any/ws")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(list)
	want := fmt.Sprintf("[{%s note 0 2 %s } {%s named 5 %s }]", idB,
		base.Add(time.Minute).UTC().Format("2006-01-02T15:04:05.000Z07:00"), idA, base.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	if got != want {
		t.Errorf("List %s\nwant %s", got, want)
	}
	page, total, err := s.Messages(ctx, "/any/ws", idA, 1, 2, true)
	if err != nil || total != 5 || ids(page) != "m3 m2" {
		t.Errorf("desc page %q of %d, %v; want m3 m2 of 5", ids(page), total, err)
	}
	page, _, err = s.Messages(ctx, "/any/ws", idA, 3, 10, false)
	if err != nil || ids(page) != "m3 m4" {
		t.Errorf("asc page %q, %v; want m3 m4", ids(page), err)
	}
	if _, _, err := s.Messages(ctx, "/any/ws", idB, -1, 2, true); err == nil {
		t.Error("a negative offset was accepted")
	}
	if _, _, err := s.Messages(ctx, "/any/ws", "../"+idA, 0, 2, true); err == nil {
		t.Error("an id naming a file elsewhere was accepted")
	}
	if _, _, err := s.Messages(ctx, "/any/ws", "00000000-0000-4000-8000-0000000000ff", 0, 2, true); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("missing session: %v, want ErrNoSession", err)
	}
	if st := s.Stats(); st.FullScans != 2 {
		t.Errorf("%d full scans for two sessions", st.FullScans)
	}
}

// TestFoldersDamagedAndStale: a message line damaged inside (counted, not
// readable) is left out of its page; a file rewritten in place with its
// size and time kept fails the page that finds it out, and the next call
// reads the file as it is.
func TestFoldersDamagedAndStale(t *testing.T) {
	s, d := newNotes(t, history.Options{})
	p := filepath.Join(d, idA+".notes")
	mtime := time.Now().Add(-time.Hour)
	content := lines(0, 2) + `{"id":"m2","text":` + "\n" + lines(3, 2)
	write(t, p, content, mtime)
	ctx := context.Background()
	page, total, err := s.Messages(ctx, "/any/ws", idA, 0, 10, false)
	if err != nil || total != 5 || ids(page) != "m0 m1 m3 m4" {
		t.Fatalf("page %q of %d, %v; want the damaged line left out of 5", ids(page), total, err)
	}
	// The same size and time, a message line replaced by a title line of
	// the same length: the old places are still whole lines, one of them
	// no longer a message.
	m1 := `{"id":"m1","text":"note 1"}`
	title := `{"title":"` + strings.Repeat("x", len(m1)-len(`{"title":""}`)) + `"}`
	write(t, p, strings.Replace(content, m1, title, 1), mtime)
	if page, _, err := s.Messages(ctx, "/any/ws", idA, 0, 10, false); err == nil {
		t.Fatalf("served the old index: %q", ids(page))
	}
	page, total, err = s.Messages(ctx, "/any/ws", idA, 0, 10, false)
	if err != nil || total != 4 || ids(page) != "m0 m3 m4" {
		t.Errorf("then %q of %d, %v; want the file as it is (m0 m3 m4 of 4)", ids(page), total, err)
	}
}

// TestFoldersTailTrashWatch: Tail emits what is appended, Watch names the
// session written, Trash takes it away (List and Messages no longer see it).
func TestFoldersTailTrashWatch(t *testing.T) {
	// A watcher of its own (it ends with its last watch), as the daemon's is shared.
	w := fswatch.New(fswatch.Config{})
	s, d := newNotes(t, history.Options{Watcher: w})
	p := filepath.Join(d, idA+".notes")
	write(t, p, lines(0, 1), time.Now())
	ctx := context.Background()
	got := make(chan rpc.Message, 4)
	tail, err := s.Tail(ctx, "/any/ws", idA, func(m rpc.Message) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	changed := make(chan string, 16)
	watch, err := s.Watch("/any/ws", func(id string) { changed <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"title":"not a message"}` + "\n" + lines(1, 1))
	f.Close()
	select {
	case m := <-got:
		if m.ID != "m1" || m.SessionID != idA {
			t.Errorf("tailed %+v, want m1", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing tailed")
	}
	select {
	case id := <-changed:
		if id != idA {
			t.Errorf("watch named %s", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change watched")
	}
	bin := &dirBin{dir: t.TempDir()}
	if err := s.Trash(ctx, "/any/ws", idA, bin); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin.dir, idA+".notes")); err != nil {
		t.Errorf("not in the bin: %v", err)
	}
	if list, err := s.List(ctx, "/any/ws"); err != nil || len(list) != 0 {
		t.Errorf("List after Trash: %v, %v", list, err)
	}
	if s.Has(ctx, "/any/ws", idA) {
		t.Error("Has after Trash")
	}
	if err := s.Trash(ctx, "/any/ws", idA, bin); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Trash again: %v, want ErrNoSession", err)
	}
}

// dirBin moves files into a directory.
type dirBin struct{ dir string }

func (b *dirBin) Put(p string) error { return os.Rename(p, filepath.Join(b.dir, filepath.Base(p))) }
