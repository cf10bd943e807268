package chats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// refState is the replay as it was before the index: every line decoded
// with encoding/json (parseLine), the state a map of entries. It is the
// reference the index must equal.
type refState struct {
	header Header
	order  []string
	recs   map[string]*entry
	infos  map[string]info
}

func newRef() *refState { return &refState{recs: map[string]*entry{}, infos: map[string]info{}} }

func (s *refState) apply(path string, off int64, b []byte) {
	l, err := parseLine(b)
	if err != nil {
		return
	}
	switch l.Kind {
	case KindHeader:
		s.header.patch(l.Header)
	case KindSet:
		s.header.patch(l.Set)
		if l.HasMsgs {
			s.order, s.recs, s.infos = s.order[:0], map[string]*entry{}, map[string]info{}
			for _, r := range l.SetMsgs {
				s.upsert(path, off, r)
			}
		}
	case KindRecord:
		s.upsert(path, off, l.Record)
	}
}

func (s *refState) upsert(path string, off int64, r Record) {
	if _, ok := s.recs[r.ID]; !ok {
		s.order = append(s.order, r.ID)
	}
	s.recs[r.ID] = &entry{id: r.ID, path: path, off: off + int64(r.Start), n: len(r.Raw), sum: checksum(r.Raw)}
	s.infos[r.ID] = r.info
}

func (s *refState) snapshot() *view {
	v := &view{header: s.header, calls: map[string]bool{}}
	for _, id := range s.order {
		for _, c := range s.infos[id].calls {
			v.calls[c] = true
		}
	}
	for _, id := range s.order {
		if in := s.infos[id]; in.isMessage(v.called) {
			v.msgs = append(v.msgs, s.recs[id])
			v.n++
			if v.prompt == "" {
				v.prompt = in.prompt
			}
		}
	}
	return v
}

// refView replays the file at path the old way.
func refView(t testing.TB, path string) *view {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := newRef()
	var sp jsonl.Splitter
	sp.Feed(b, func(off int64, line []byte) { s.apply(path, off, line) })
	return s.snapshot()
}

// indexView replays the file at path into old (nil: from scratch) the new
// way.
func indexView(t testing.TB, path string, old *index) (*index, *view) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := lineindex.Refresh(context.Background(), old, f, fi, (*index).add, zap.NewNop(), "chat file")
	if err != nil {
		t.Fatal(err)
	}
	return x, x.snapshot(path)
}

// sameView fails t unless got says what want says.
func sameView(t testing.TB, what string, got, want *view) {
	t.Helper()
	if got.header != want.header || got.prompt != want.prompt || !reflect.DeepEqual(got.calls, want.calls) {
		t.Fatalf("%s: header %+v prompt %q calls %v, want %+v %q %v", what, got.header, got.prompt, got.calls, want.header, want.prompt, want.calls)
	}
	gotAll, wantAll := got.all(), want.all()
	if len(gotAll) != len(wantAll) || got.n != len(wantAll) {
		t.Fatalf("%s: %d messages (counted %d), want %d", what, len(gotAll), got.n, len(wantAll))
	}
	for i := range gotAll {
		if *gotAll[i] != *wantAll[i] {
			t.Fatalf("%s: message %d is %+v, want %+v", what, i, *gotAll[i], *wantAll[i])
		}
	}
}

// checkReplay compares the two replays of content, written whole and
// written in two steps (the index extended by the second).
func checkReplay(t *testing.T, content []byte, cut int) {
	t.Helper()
	p := t.TempDir() + "/session-2026-11-23T00-00-abcdef01.jsonl"
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	_, got := indexView(t, p, nil)
	sameView(t, "whole", got, refView(t, p))
	if cut <= 0 || cut >= len(content) {
		return
	}
	if err := os.WriteFile(p, content[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	x, before := indexView(t, p, nil)
	appendFile(t, p, string(content[cut:]))
	_, got = indexView(t, p, x)
	sameView(t, "grown", got, refView(t, p))
	// The index extended is a copy: views of the old one are unchanged.
	sameView(t, "old index", x.snapshot(p), before)
}

// validLines reports whether every line fastLine takes is valid JSON: the
// only lines on which the replays may differ (see parseLine).
func validLines(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if _, ok := fastLineOf(l, false); ok && !json.Valid(l) {
			return false
		}
	}
	return true
}

func TestReplayEqualsReference(t *testing.T) {
	files, _ := os.ReadDir("testdata")
	n := 0
	for _, de := range files {
		b, err := os.ReadFile("testdata/" + de.Name())
		if err != nil || !bytes.HasSuffix([]byte(de.Name()), []byte(".jsonl")) {
			continue
		}
		n++
		t.Run(de.Name(), func(t *testing.T) {
			for cut := 0; cut <= len(b); cut += max(1, len(b)/37) {
				checkReplay(t, b, cut)
			}
		})
	}
	if n < 4 {
		t.Fatalf("only %d testdata files", n)
	}
}

func FuzzReplay(f *testing.F) {
	for _, name := range []string{"session.jsonl", "reset.jsonl", "phantom.jsonl", "load.jsonl", "resumed.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, len(b)/2)
	}
	f.Add([]byte(`{"id":"a","type":"user","content":"x"}`+"\n"+`{"$set":{"messages":[{"id":"b","type":"user","content":"y"}]}}`+"\n"+`{"id":"a","type":"gemini","content":"z","toolCalls":[{"id":"c"}]}`+"\n"), 40)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		if !validLines(b) {
			t.Skip()
		}
		checkReplay(t, b, cut)
	})
}

// The facts persisted are read back as written; damaged ones are refused.
func TestFactsRoundTrip(t *testing.T) {
	p := t.TempDir() + "/c.jsonl"
	b, err := os.ReadFile("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	x, want := indexView(t, p, nil)
	y := &index{Index: x.Index}
	facts := x.AppendFacts(nil)
	if err := y.ReadFacts(facts); err != nil {
		t.Fatal(err)
	}
	sameView(t, "read back", y.snapshot(p), want)
	for i := range len(facts) {
		if (&index{Index: x.Index}).ReadFacts(facts[:i]) == nil {
			t.Fatalf("facts cut at %d of %d read", i, len(facts))
		}
	}
	if (&index{Index: x.Index}).ReadFacts(append(facts, 0)) == nil {
		t.Fatal("trailing byte read")
	}
}

// TestMergeEqualsReference: a file replayed in two parts merged (as
// jsonl does a big file's parts, on every core) equals the reference
// replay, wherever the cut falls between lines.
func TestMergeEqualsReference(t *testing.T) {
	for _, name := range []string{"session.jsonl", "reset.jsonl", "phantom.jsonl", "load.jsonl", "resumed.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		// Written twice, so that records are written again after the cut.
		b = append(b, b...)
		dir := t.TempDir()
		whole, first, second := dir+"/whole.jsonl", dir+"/a.jsonl", dir+"/b.jsonl"
		if err := os.WriteFile(whole, b, 0o600); err != nil {
			t.Fatal(err)
		}
		full, _ := indexView(t, whole, nil)
		want := refView(t, whole)
		for cut := 0; cut < len(b); cut++ {
			if cut > 0 && b[cut-1] != '\n' {
				continue
			}
			if err := os.WriteFile(first, b[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(second, b[cut:], 0o600); err != nil {
				t.Fatal(err)
			}
			x, _ := indexView(t, first, nil)
			y, _ := indexView(t, second, nil)
			// x as jsonl leaves it before Merge: the lines of both parts.
			m := &index{Index: full.Index, header: x.header, recs: x.recs, pos: x.pos, strs: x.strs, reset: x.reset}
			m.Merge(y)
			sameView(t, fmt.Sprintf("%s cut at %d", name, cut), m.snapshot(whole), want)
		}
	}
}

// TestMergeThreeParts: a file replayed in three parts merged as jsonl
// merges them (the later parts' records kept where their scans put them)
// equals the reference; so do its facts read back, and its replay
// extended by lines appended after (its records joined then).
func TestMergeThreeParts(t *testing.T) {
	for _, name := range []string{"session.jsonl", "reset.jsonl", "load.jsonl", "resumed.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, b...)
		var cuts []int // line starts
		for i := range b {
			if i == 0 || b[i-1] == '\n' {
				cuts = append(cuts, i)
			}
		}
		dir := t.TempDir()
		write := func(name string, b []byte) string {
			p := dir + "/" + name
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		for i, c1 := range cuts {
			for _, c2 := range cuts[i:min(i+4, len(cuts))] {
				whole := write("whole.jsonl", b)
				full, _ := indexView(t, whole, nil)
				xy, _ := indexView(t, write("xy.jsonl", b[:c2]), nil)
				x, _ := indexView(t, write("x.jsonl", b[:c1]), nil)
				y, _ := indexView(t, write("y.jsonl", b[c1:c2]), nil)
				z, _ := indexView(t, write("z.jsonl", b[c2:]), nil)
				what := fmt.Sprintf("%s cut at %d, %d", name, c1, c2)
				// As jsonl leaves x before each Merge: the lines so far.
				m := &index{Index: xy.Index, header: x.header, recs: x.recs, pos: x.pos, strs: x.strs, reset: x.reset}
				m.Merge(y)
				m.Index = full.Index
				m.Merge(z)
				sameView(t, what, m.snapshot(whole), refView(t, whole))
				facts := m.AppendFacts(nil)
				r := &index{Index: full.Index}
				if err := r.ReadFacts(facts); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameView(t, what+" read back", r.snapshot(whole), refView(t, whole))
				appendFile(t, whole, `{"id":"late","type":"user","content":"late"}`+"\n"+string(b[:c1]))
				_, v := indexView(t, whole, m)
				sameView(t, what+" grown", v, refView(t, whole))
				sameView(t, what+" kept", m.snapshot(whole), r.snapshot(whole))
			}
		}
	}
}

// rewrittenChat is a chat file of the generator's turns, at least
// messages of them, with an early user record written again after every
// every-th turn.
func rewrittenChat(messages, every int) []byte {
	g := geminigen.New("0b000000-0000-4000-8000-000000000001", "/ws")
	var b []byte
	for _, l := range g.Header() {
		b = append(b, l+"\n"...)
	}
	for i := 0; g.Messages() < messages; i++ {
		for _, l := range g.Turn() {
			b = append(b, l+"\n"...)
		}
		if i%every == 0 { // an early record written again
			b = append(b, fmt.Sprintf(`{"id":"u-%d","type":"user","content":"again %d"}`+"\n", i/3, i)...)
		}
	}
	return b
}

// TestReplayManyRecords: a replay of many records equals the reference, records written
// again far from their first version (in an earlier part) included, as do
// its facts read back and its replay extended.
func TestReplayManyRecords(t *testing.T) {
	b := rewrittenChat(3000, 97)
	checkReplay(t, b, len(b)/3)
	p := t.TempDir() + "/c.jsonl"
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	x, want := indexView(t, p, nil)
	r := &index{Index: x.Index}
	if err := r.ReadFacts(x.AppendFacts(nil)); err != nil {
		t.Fatal(err)
	}
	sameView(t, "read back", r.snapshot(p), want)
}

// TestPageEqualsAll: a page found by walking the records from either end
// is the same part of the list of every message, in the page's order, for
// pages at every place and of every size, over a file whose messages are
// interleaved with records that are not (the context, a tool call's first
// version, function responses).
func TestPageEqualsAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "session-2026-11-23T00-00-0b000001.jsonl")
	g := geminigen.New("0b000001-0000-4000-8000-000000000001", t.TempDir())
	if err := g.Write(p, 0, 400); err != nil {
		t.Fatal(err)
	}
	x, v := indexView(t, p, nil)
	all := v.all()
	if len(all) != g.Messages() || v.n != len(all) {
		t.Fatalf("%d messages, counted %d; the generator wrote %d", len(all), v.n, g.Messages())
	}
	for from := 0; from <= v.n; from += 7 {
		for _, size := range []int{0, 1, 3, 50, v.n} {
			to := min(from+size, v.n)
			for _, desc := range []bool{false, true} {
				fresh := x.snapshot(p) // its list not made: the page is walked
				got := fresh.page(from, to, desc)
				if fresh.ready.Load() {
					t.Fatalf("page %d–%d made the whole list", from, to)
				}
				if len(got) != to-from {
					t.Fatalf("page %d–%d desc %t: %d entries", from, to, desc, len(got))
				}
				for i, e := range got {
					j := from + i
					if desc {
						j = v.n - 1 - j
					}
					if *e != *all[j] {
						t.Fatalf("page %d–%d desc %t, entry %d: %+v, want %+v", from, to, desc, i, *e, *all[j])
					}
				}
			}
		}
	}
}
