package transcript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

const workDir = "/home/dev/my app"

// newStore returns a Store over a temp projects directory, and the folder
// of workDir's transcripts in it.
func newStore(t testing.TB) (*Store, string) {
	t.Helper()
	s := New(t.TempDir(), nil)
	t.Cleanup(func() { s.Close() })
	d := s.Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return s, d
}

// writeSession writes a transcript and sets its modification time.
func writeSession(t *testing.T, d, id, content string, mtime time.Time) string {
	t.Helper()
	p := filepath.Join(d, id+".jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	idA = "aaaaaaaa-0000-4000-8000-000000000000"
	idB = "bbbbbbbb-0000-4000-8000-000000000000"
	idC = "cccccccc-0000-4000-8000-000000000000"
)

func TestDirAndPath(t *testing.T) {
	s := New("/p", nil)
	if got := s.Dir("/home/dev/my app"); got != "/p/-home-dev-my-app" {
		t.Errorf("Dir = %q", got)
	}
	s, d := newStore(t)
	writeSession(t, d, idA, "", time.Now())
	if p, err := s.Path(workDir, idA); err != nil || p != filepath.Join(d, idA+".jsonl") {
		t.Errorf("Path = %q, %v", p, err)
	}
	if _, err := s.Path(workDir, idB); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Path of a missing session: %v, want ErrNoSession", err)
	}
	for _, bad := range []string{"", "../x", "..", "a/b", `a\b`, "a\x00b"} {
		if _, err := s.Path(workDir, bad); !errors.Is(err, runtimes.ErrBadSessionID) {
			t.Errorf("Path(%q): %v, want ErrBadSessionID", bad, err)
		}
	}
}

func TestList(t *testing.T) {
	s, d := newStore(t)
	if got, err := New(t.TempDir(), nil).List(context.Background(), workDir); err != nil || len(got) != 0 {
		t.Errorf("List of a workspace with no folder = %v, %v; want empty", got, err)
	}
	base := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

	real, err := os.ReadFile("testdata/lines/real-cli-2.1.197-transcript.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	writeSession(t, d, idA, string(real), base)

	g := newGen(idB)
	g.branch = "old"
	first := g.lines(2)
	g.branch = "feature/x"
	summary := `{"type":"summary","summary":"Refactor the parser","leafUuid":"x"}` + "\n"
	writeSession(t, d, idB, summary+first+g.lines(3), base.Add(2*time.Hour))

	long := `{"type":"user","message":{"role":"user","content":"` + fmt.Sprintf("%0150d", 7) + `"},"uuid":"u1","sessionId":"c"}` + "\n"
	titled := `{"type":"ai-title","aiTitle":"First title","sessionId":"c"}` + "\n" +
		`{"type":"custom-title","customTitle":"Renamed by the user","sessionId":"c"}` + "\n"
	writeSession(t, d, idC, long+titled, base.Add(time.Hour))

	// Not sessions: a sub-agent file, a folder the CLI keeps, other files.
	writeSession(t, d, "agent-1234", newGen("x").lines(1), base)
	writeSession(t, d, "notes", "x", base)
	if err := os.Mkdir(filepath.Join(d, "memory"), 0o700); err != nil {
		t.Fatal(err)
	}

	got, err := s.List(context.Background(), workDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []runtimes.Summary{
		{SessionID: idB, Summary: "Refactor the parser", MessageCount: 5, LastUpdated: "2026-01-02T12:00:00.000Z", Branch: "feature/x"},
		{SessionID: idC, Summary: "Renamed by the user", MessageCount: 1, LastUpdated: "2026-01-02T11:00:00.000Z"},
		{SessionID: idA, Summary: "Say hello", MessageCount: 9, LastUpdated: "2026-01-02T10:00:00.000Z", Branch: "feature/demo"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List:\n got %+v\nwant %+v", got, want)
	}
}

func TestListSummaryFromPrompt(t *testing.T) {
	s, d := newStore(t)
	lines := `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: meta"},"uuid":"1"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"},"uuid":"2"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},"uuid":"3"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"  Explain\nthis ` + fmt.Sprintf("%0120d", 0) + `"},"uuid":"4"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"second prompt"},"uuid":"5"}` + "\n"
	writeSession(t, d, idA, lines, time.Now())
	got, err := s.List(context.Background(), workDir)
	if err != nil || len(got) != 1 {
		t.Fatalf("List = %v, %v", got, err)
	}
	want := "Explain this " + fmt.Sprintf("%086d", 0) + "…"
	if got[0].Summary != want || got[0].MessageCount != 4 {
		t.Errorf("summary %q (%d runes), count %d; want %q, 4", got[0].Summary, len([]rune(got[0].Summary)), got[0].MessageCount, want)
	}
}

// TestListCache proves List does not re-read unchanged transcripts and
// reads only what was appended to one that grew.
func TestListCache(t *testing.T) {
	s, d := newStore(t)
	ctx := context.Background()
	g := newGen(idA)
	p := writeSession(t, d, idA, g.lines(10), time.Now())
	size := fileSize(t, p)

	list := func() []runtimes.Summary {
		t.Helper()
		got, err := s.List(ctx, workDir)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	list()
	list()
	if n, b := s.Stats().FullScans, s.Stats().ScannedBytes; n != 1 || b != size {
		t.Fatalf("after two Lists of an unchanged file: %d full scans, %d bytes read; want 1, %d", n, b, size)
	}

	more := g.lines(3)
	appendFile(t, p, more)
	if got := list(); got[0].MessageCount != 13 {
		t.Errorf("after append: %d messages, want 13", got[0].MessageCount)
	}
	if n, b := s.Stats().FullScans, s.Stats().ScannedBytes; n != 1 || b != size+int64(len(more)) {
		t.Errorf("after append: %d full scans, %d bytes read; want 1, %d", n, b, size+int64(len(more)))
	}

	// A session started outside cdevd is just a new file in the folder.
	writeSession(t, d, idB, newGen(idB).lines(1), time.Now().Add(time.Hour))
	if got := list(); len(got) != 2 || got[0].SessionID != idB || got[0].MessageCount != 1 {
		t.Errorf("after an external session: %+v", got)
	}
	if n := s.Stats().FullScans; n != 2 {
		t.Errorf("%d full scans, want 2 (one per file)", n)
	}

	// A removed file disappears and its cache entry with it.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 1 || got[0].SessionID != idB {
		t.Errorf("after removing %s: %+v", idA, got)
	}
	if n := s.Stats().Indexes; n != 1 {
		t.Errorf("%d cached entries, want 1", n)
	}
}

func fileSize(t testing.TB, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// uuids lists the uuids of messages, for comparing pages.
func uuids(ms []rpc.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.UUID
	}
	return out
}

// want lists the uuids of generated messages from..to, counting down when
// from > to.
func want(from, to int) []string {
	out := []string{}
	for i := from; ; {
		out = append(out, msgUUID(i))
		if i == to {
			return out
		}
		if from < to {
			i++
		} else {
			i--
		}
	}
}

func TestMessagesPaging(t *testing.T) {
	s, d := newStore(t)
	writeSession(t, d, idA, newGen(idA).lines(25), time.Now())
	for _, c := range []struct {
		name          string
		offset, limit int
		desc          bool
		want          []string
	}{
		{"first page", 0, 10, false, want(0, 9)},
		{"middle page", 10, 10, false, want(10, 19)},
		{"last partial page", 20, 10, false, want(20, 24)},
		{"past the end", 25, 10, false, []string{}},
		{"newest first", 0, 3, true, want(24, 22)},
		{"desc offset counts from the newest", 3, 3, true, want(21, 19)},
		{"desc oldest partial page", 23, 5, true, want(1, 0)},
		{"empty limit", 0, 0, false, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := s.Messages(context.Background(), workDir, idA, c.offset, c.limit, c.desc)
			if err != nil {
				t.Fatal(err)
			}
			if total != 25 || fmt.Sprint(uuids(got)) != fmt.Sprint(c.want) {
				t.Errorf("got total %d, %v; want 25, %v", total, uuids(got), c.want)
			}
		})
	}
	m, _, err := s.Messages(context.Background(), workDir, idA, 3, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if m[0].SessionID != idA || m[0].Type != rpc.MessageUser || m[0].Message.Content[0].Type != rpc.BlockToolResult {
		t.Errorf("message 3 = %+v, want the tool result of session %s", m[0], idA)
	}
	if n := s.Stats().FullScans; n != 1 {
		t.Errorf("%d full scans for %d pages, want 1", n, 9)
	}
	if _, _, err := s.Messages(context.Background(), workDir, idA, -1, 5, false); err == nil {
		t.Error("negative offset accepted")
	}
}

func TestMessagesErrors(t *testing.T) {
	s, _ := newStore(t)
	if _, _, err := s.Messages(context.Background(), workDir, idA, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("missing session: %v, want ErrNoSession", err)
	}
	if _, _, err := s.Messages(context.Background(), workDir, "../x", 0, 10, false); !errors.Is(err, runtimes.ErrBadSessionID) {
		t.Errorf("session id ../x: %v, want ErrBadSessionID", err)
	}
}

// TestMessagesFileChanges follows one file through growth, a torn line,
// truncation and replacement, checking what was re-read each time.
func TestMessagesFileChanges(t *testing.T) {
	s, d := newStore(t)
	ctx := context.Background()
	g := newGen(idA)
	p := writeSession(t, d, idA, g.lines(5), time.Now())
	page := func(desc bool) ([]string, int) {
		t.Helper()
		got, total, err := s.Messages(ctx, workDir, idA, 0, 3, desc)
		if err != nil {
			t.Fatal(err)
		}
		return uuids(got), total
	}
	check := func(step string, desc bool, wantTotal int, wantPage []string, wantScans int64) {
		t.Helper()
		got, total := page(desc)
		if total != wantTotal || fmt.Sprint(got) != fmt.Sprint(wantPage) {
			t.Errorf("%s: total %d, page %v; want %d, %v", step, total, got, wantTotal, wantPage)
		}
		if n := s.Stats().FullScans; n != wantScans {
			t.Errorf("%s: %d full scans, want %d", step, n, wantScans)
		}
	}
	check("start", true, 5, want(4, 2), 1)

	appendFile(t, p, g.lines(2))
	check("grown", true, 7, want(6, 4), 1)

	// A line still being written is not a message yet.
	next := g.message()
	appendFile(t, p, next[:len(next)/2])
	check("torn line", true, 7, want(6, 4), 1)
	appendFile(t, p, next[len(next)/2:]+"\n")
	check("torn line completed", true, 8, want(7, 5), 1)

	// Truncated in place: rebuilt.
	g2 := newGen(idA)
	if err := os.WriteFile(p, []byte(g2.lines(2)), 0o600); err != nil {
		t.Fatal(err)
	}
	check("truncated", false, 2, want(0, 1), 2)

	// Replaced by another file (a new inode): rebuilt even when it is bigger.
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(newGen(idA).lines(4)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	check("replaced", false, 4, want(0, 2), 3)
}

// TestMessagesLongLines: lines longer than a read chunk are indexed and
// returned whole.
func TestMessagesLongLines(t *testing.T) {
	s, d := newStore(t)
	g := newGen(idA)
	g.pad = strings.Repeat("x", jsonl.ChunkSize/3)
	writeSession(t, d, idA, g.lines(12), time.Now())
	got, total, err := s.Messages(context.Background(), workDir, idA, 0, 20, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 12 || fmt.Sprint(uuids(got)) != fmt.Sprint(want(0, 11)) {
		t.Fatalf("total %d, %v; want 12, %v", total, uuids(got), want(0, 11))
	}
	if text := got[1].Message.Content[0].Text; text != "message 1"+g.pad {
		t.Errorf("message 1 has %d bytes of text, want %d", len(text), len("message 1"+g.pad))
	}
}

// TestMessagesMalformedMessageLine: a line shaped like a message, which the
// index counts without decoding it, but not valid JSON inside, is left out
// of its page; the pages around it are served, every time.
func TestMessagesMalformedMessageLine(t *testing.T) {
	s, d := newStore(t)
	g := newGen(idA)
	bad := `{"type":"user","message":{"content":[tru]},"uuid":"bad"}` + "\n"
	writeSession(t, d, idA, g.lines(2)+bad+g.lines(2), time.Now())
	for range 2 {
		got, total, err := s.Messages(context.Background(), workDir, idA, 0, 10, false)
		if err != nil {
			t.Fatal(err)
		}
		if total != 5 || fmt.Sprint(uuids(got)) != fmt.Sprint(want(0, 3)) {
			t.Errorf("total %d, %v; want 5 (the line counted), %v", total, uuids(got), want(0, 3))
		}
	}
}

// TestPersistedIndexRestart: a Store started on the cache directory of
// another (a daemon restart) serves a big transcript's pages and summary
// without scanning it, equal to what the first Store served; titles, first
// prompt and branch survive the trip.
func TestPersistedIndexRestart(t *testing.T) {
	projects, cache := t.TempDir(), t.TempDir()
	d := New(projects, nil).Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, idA+".jsonl")
	n := writeTranscript(t, p, idA, 2<<20)
	appendFile(t, p, `{"type":"custom-title","customTitle":"renamed","sessionId":"`+idA+`"}`+"\n")
	ctx := context.Background()
	serve := func(s *Store) (string, []runtimes.Summary) {
		t.Helper()
		page, total, err := s.Messages(ctx, workDir, idA, 7, 50, true)
		if err != nil || total != n {
			t.Fatalf("total %d, %v; want %d", total, err, n)
		}
		list, err := s.List(ctx, workDir)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(uuids(page)), list
	}
	first := New(projects, nil).WithCacheDir(cache)
	page1, list1 := serve(first)
	first.Close() // as the daemon stops: the index saves under way end
	second := New(projects, nil).WithCacheDir(cache)
	defer second.Close()
	page2, list2 := serve(second)
	if page2 != page1 || fmt.Sprint(list2) != fmt.Sprint(list1) {
		t.Errorf("after restart: %s %v; before: %s %v", page2, list2, page1, list1)
	}
	if list1[0].Summary != "renamed" || list1[0].Branch != "main" {
		t.Errorf("summary %+v", list1[0])
	}
	if first.Stats().FullScans != 1 || second.Stats().FullScans != 0 || second.Stats().ScannedBytes != 0 {
		t.Errorf("full scans %d then %d (%d bytes); want 1 then 0", first.Stats().FullScans, second.Stats().FullScans, second.Stats().ScannedBytes)
	}
}

func TestIndexFactsRoundTrip(t *testing.T) {
	x := &index{facts: facts{Titles: [3]string{"c", "a", "s"}, Prompt: "p\nq", Branch: "b", Titled: [3]bool{true, false, true}}}
	var y index
	if err := y.ReadFacts(x.AppendFacts(nil)); err != nil || fmt.Sprint(y) != fmt.Sprint(*x) {
		t.Errorf("%+v, %v; want %+v", y, err, *x)
	}
	for _, bad := range [][]byte{nil, {9}, x.AppendFacts(nil)[:5], append(x.AppendFacts(nil), 0)} {
		if (&index{}).ReadFacts(bad) == nil {
			t.Errorf("facts %q accepted", bad)
		}
	}
}

// TestMessagesRewrittenInPlace: a transcript rewritten in place with its
// size and modification time kept (its lines moved) is detected when a
// page is read: no page of the old offsets is served, and the next call
// indexes the file as it is.
func TestMessagesRewrittenInPlace(t *testing.T) {
	for _, cacheDir := range []bool{false, true} {
		s, d := newStore(t)
		if cacheDir {
			s.WithCacheDir(t.TempDir())
		}
		mtime := time.Now().Add(-time.Hour)
		old := newGen(idA).lines(10)
		p := writeSession(t, d, idA, old, mtime)
		ctx := context.Background()
		if _, _, err := s.Messages(ctx, workDir, idA, 0, 4, true); err != nil {
			t.Fatal(err)
		}
		// Every line moves 40 bytes on; the last one is cut short (torn).
		shift := `{"type":"queue-operation","pad":"....."}` + "\n"
		writeSession(t, d, idA, (shift + old)[:len(old)], mtime)
		want := func() ([]string, int) {
			fresh := New(t.TempDir(), nil)
			fd := fresh.Dir(workDir)
			os.MkdirAll(fd, 0o700)
			b, _ := os.ReadFile(p)
			writeSession(t, fd, idA, string(b), mtime)
			m, total, err := fresh.Messages(ctx, workDir, idA, 0, 4, true)
			if err != nil {
				t.Fatal(err)
			}
			return uuids(m), total
		}
		wantPage, wantTotal := want()
		got, total, err := s.Messages(ctx, workDir, idA, 0, 4, true)
		if err == nil && (fmt.Sprint(uuids(got)) != fmt.Sprint(wantPage) || total != wantTotal) {
			t.Errorf("cache dir %v: served %v of %d from the old offsets; want %v of %d", cacheDir, uuids(got), total, wantPage, wantTotal)
		}
		got, total, err = s.Messages(ctx, workDir, idA, 0, 4, true)
		if err != nil || fmt.Sprint(uuids(got)) != fmt.Sprint(wantPage) || total != wantTotal {
			t.Errorf("cache dir %v: then %v of %d, %v; want %v of %d", cacheDir, uuids(got), total, err, wantPage, wantTotal)
		}
	}
}

// TestBigTranscriptInParts: a transcript big enough to be scanned in parts
// (one per core) is indexed as in one scan: count, pages, title, branch.
func TestBigTranscriptInParts(t *testing.T) {
	projects := t.TempDir()
	d := New(projects, nil).Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, idA+".jsonl")
	writeTranscript(t, p, idA, 17<<20)
	appendFile(t, p, `{"type":"ai-title","aiTitle":"late title","sessionId":"`+idA+`"}`+"\n")
	serve := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s := New(projects, nil)
		defer s.Close()
		ctx := context.Background()
		var out []string
		for _, off := range []int{0, 1000, 9000} {
			page, total, err := s.Messages(ctx, workDir, idA, off, 20, off != 1000)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(total, uuids(page)))
		}
		list, err := s.List(ctx, workDir)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(out, list)
	}
	if one, parts := serve(1), serve(3); one != parts {
		t.Errorf("in parts:\n%s\nin one scan:\n%s", parts, one)
	}
}
