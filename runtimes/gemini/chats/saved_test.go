package chats

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// page is messages [from, to) of v (0 ≤ from ≤ to ≤ v.n), counted from the
// newest when desc, in that order.
func (v *view) page(from, to int, desc bool) []*entry { return pageOf(v.n, from, to, desc, v.entry) }

// savedChats are chat files whose views a saved index must give back:
// the testdata files, and the generator's turns with early records
// written again.
func savedChats(t *testing.T) map[string][]byte {
	t.Helper()
	chats := map[string][]byte{"rewritten": rewrittenChat(600, 7)}
	for _, name := range []string{"session.jsonl", "reset.jsonl", "phantom.jsonl", "load.jsonl", "resumed.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		chats[name] = b
	}
	return chats
}

// readBack is x's index as a restarted daemon reads it: its Lines, and its
// facts as saved.
func readBack(t *testing.T, x *index) *index {
	t.Helper()
	y := &index{Index: x.Index}
	if err := y.ReadFacts(x.AppendFacts(nil)); err != nil {
		t.Fatal(err)
	}
	return y
}

// The view of an index read back from its facts is the view of the replay
// (its count, prompt, messages and tool calls, every page), read in place:
// no record is decoded for it. The index extended by lines appended after
// the save (records written again, a $set of the list, a header) equals
// the reference replay of the grown file.
func TestSavedViewEqualsReplay(t *testing.T) {
	for name, b := range savedChats(t) {
		t.Run(name, func(t *testing.T) {
			p := t.TempDir() + "/c.jsonl"
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			x, want := indexView(t, p, nil)
			y := readBack(t, x)
			got := y.view(p)
			if got.saved == nil || y.recs != nil {
				t.Fatal("the view read back is not the saved one, or its records were decoded")
			}
			sameView(t, "saved", &view{x: got.x, header: got.header, prompt: got.prompt, n: got.n, calls: savedCalls(got), order: got.order, saved: got.saved, path: p}, want)
			for id := range want.calls {
				if !got.called(id) {
					t.Fatalf("call %q not found", id)
				}
			}
			for _, id := range []string{"", "\x00", "zzzz", "c", "missing-call"} {
				if got.called(id) != want.calls[id] {
					t.Fatalf("called(%q) = %t", id, got.called(id))
				}
			}
			all := want.all()
			for from := 0; from <= want.n; from += max(1, want.n/9) {
				for _, desc := range []bool{false, true} {
					to := min(from+50, want.n)
					for i, e := range got.page(from, to, desc) {
						j := from + i
						if desc {
							j = want.n - 1 - j
						}
						if *e != *all[j] {
							t.Fatalf("page %d–%d desc %t, entry %d: %+v, want %+v", from, to, desc, i, *e, *all[j])
						}
					}
				}
			}
			if got.ready.Load() {
				t.Fatal("a page made the list of every message")
			}
			for _, more := range []string{
				`{"id":"late","type":"user","content":"late"}`,
				string(b[:bytes.LastIndexByte(b[:len(b)/2], '\n')+1]) + "{}", // early records written again
				`{"$set":{"lastUpdated":"2026-11-24T00:00:00.000Z"}}`,
				`{"sessionId":"0b000000-0000-4000-8000-000000000009","projectHash":"p","startTime":"2026-11-24T00:00:00.000Z"}`,
				`{"$set":{"messages":[{"id":"only","type":"user","content":"reset"}]}}`,
			} {
				appendFile(t, p, more+"\n")
				var grown *view
				y, grown = indexView(t, p, y)
				sameView(t, "grown", grown, refView(t, p))
				y = readBack(t, y)
			}
		})
	}
}

// savedCalls is every tool call of v's saved table, as a set.
func savedCalls(v *view) map[string]bool {
	calls := map[string]bool{}
	for i := range len(v.saved.calls) / callSize {
		calls[string(v.saved.call(v.x, i))] = true
	}
	return calls
}

// Facts whose tables are not what AppendFacts writes are refused, each
// case alone: a read of them in place would go astray.
func TestSavedFactsRefused(t *testing.T) {
	p := t.TempDir() + "/c.jsonl"
	if err := os.WriteFile(p, rewrittenChat(40, 3), 0o600); err != nil {
		t.Fatal(err)
	}
	x, _ := indexView(t, p, nil)
	facts := x.AppendFacts(nil)
	// tables splits facts into the header's and prompt's bytes and the
	// four tables: order, strs, recs, calls.
	tables := func() ([]byte, [4][]byte) {
		r := lineindex.FactReader{B: slices.Clone(facts)}
		for range 5 {
			r.Bytes()
		}
		head := facts[:len(facts)-len(r.B)]
		var ts [4][]byte
		for i := range ts {
			ts[i] = r.Bytes()
		}
		return head, ts
	}
	join := func(head []byte, ts [4][]byte) []byte {
		b := slices.Clone(head)
		for _, t := range ts {
			b = lineindex.AppendString(b, string(t))
		}
		return b
	}
	put := func(b []byte, at int, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
	lines := x.Lines()
	for _, c := range []struct {
		what   string
		damage func(ts *[4][]byte)
	}{
		{"message beyond the records", func(ts *[4][]byte) { put(ts[0], 0, uint32(len(ts[2])/recSize)) }},
		{"record on no line", func(ts *[4][]byte) { put(ts[2], 0, uint32(len(lines))) }},
		{"record on a negative line", func(ts *[4][]byte) { put(ts[2], 0, 1<<31) }},
		{"record beyond its line", func(ts *[4][]byte) { put(ts[2], 8, uint32(lines[0].N+1)) }},
		{"record starting beyond its line", func(ts *[4][]byte) { put(ts[2], 4, 1<<31) }},
		{"record without id", func(ts *[4][]byte) { put(ts[2], 20, 0) }},
		{"strings beyond strs", func(ts *[4][]byte) { put(ts[2], 16, uint32(len(ts[1]))) }},
		{"string length wrapping", func(ts *[4][]byte) { put(ts[2], 28, 1<<32-1) }},
		{"call beyond strs", func(ts *[4][]byte) { put(ts[3], 0, uint32(len(ts[1]))) }},
		{"calls not sorted", func(ts *[4][]byte) {
			a, b := ts[3][:callSize], ts[3][callSize:2*callSize]
			tmp := slices.Clone(a)
			copy(a, b)
			copy(b, tmp)
		}},
		{"order table cut inside an entry", func(ts *[4][]byte) { ts[0] = ts[0][:len(ts[0])-1] }},
		{"records table cut inside an entry", func(ts *[4][]byte) { ts[2] = ts[2][:len(ts[2])-1] }},
		{"calls table cut inside an entry", func(ts *[4][]byte) { ts[3] = ts[3][:len(ts[3])-1] }},
	} {
		head, ts := tables()
		if len(ts[3]) < 2*callSize {
			t.Fatal("fewer than two calls")
		}
		if err := (&index{Index: x.Index}).ReadFacts(join(head, ts)); err != nil {
			t.Fatalf("undamaged: %v", err)
		}
		c.damage(&ts)
		if err := (&index{Index: x.Index}).ReadFacts(join(head, ts)); err == nil {
			t.Errorf("%s: read", c.what)
		}
	}
}

// BenchmarkReadFacts reads back the facts of the bench's 100 MB chat file,
// and makes the first page's view and entries from them: what a restart
// does besides jsonl's load. Its allocations per op do not move with the
// machine's load.
func BenchmarkReadFacts(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	g := geminigen.New("0b000000-0000-4000-8000-000000000001", ws)
	g.Pad = strings.Repeat(" lorem ipsum", 85) // claudegen.LoremPad
	p := g.Path(home)
	if err := g.Write(p, 100<<20, 0); err != nil {
		b.Fatal(err)
	}
	x, _ := indexView(b, p, nil)
	facts := x.AppendFacts(nil)
	for b.Loop() {
		y := &index{Index: x.Index}
		if err := y.ReadFacts(facts); err != nil {
			b.Fatal(err)
		}
		v := y.view(p)
		if es := v.page(0, 50, true); len(es) != 50 {
			b.Fatal(fmt.Sprint(len(es), " entries"))
		}
	}
	b.ReportMetric(float64(len(facts))/(1<<20), "facts-MB")
}

// A restarted Store serves from the saved index what a Store that replays
// every file serves (pages anywhere, in both orders, their messages whole,
// and the listing), for a session of two files, the big one saved; and so
// it does once the big file has grown after the save by a record, a record
// written again, a header and a $set, without replaying it.
func TestRestartServesReplay(t *testing.T) {
	home, ws, cache := t.TempDir(), t.TempDir(), t.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	p := writeBig(t, home, ws, id, 2<<20) // persisted from 1 MB
	second := filepath.Join(filepath.Dir(p), "session-2026-11-23T05-00-"+id8(id)+".jsonl")
	if err := os.WriteFile(second, []byte(fmt.Sprintf(`{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T05:00:00.000Z","kind":"main"}
{"id":"u0","timestamp":"2026-11-23T05:00:01.000Z","type":"user","content":[{"text":"prompt 0, again"}]}
{"id":"later","timestamp":"2026-11-23T05:00:02.000Z","type":"user","content":[{"text":"later"}]}
`, id, ProjectHash(ws))), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := New(home, nil).WithCacheDir(cache)
	if _, _, err := first.Messages(ctx, ws, id, 0, 1, true); err != nil {
		t.Fatal(err)
	}
	first.Close() // the index saved
	same := func(what string) {
		t.Helper()
		replay, restarted := New(home, nil), New(home, nil).WithCacheDir(cache)
		defer replay.Close()
		defer restarted.Close()
		for _, pg := range []struct {
			offset, limit int
			desc          bool
		}{{0, 50, true}, {0, 50, false}, {1000, 30, true}, {1000, 30, false}, {0, 5000, true}} {
			want, wantTotal, err := replay.Messages(ctx, ws, id, pg.offset, pg.limit, pg.desc)
			if err != nil {
				t.Fatal(err)
			}
			got, total, err := restarted.Messages(ctx, ws, id, pg.offset, pg.limit, pg.desc)
			if err != nil || total != wantTotal || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, page %+v: %d of %d (%v), want %d of %d: %v, want %v", what, pg, len(got), total, err, len(want), wantTotal, ids(got[:min(3, len(got))]), ids(want[:min(3, len(want))]))
			}
		}
		if st := restarted.Stats(); st.FullScans != 1 { // the small file only
			t.Fatalf("%s: %d files replayed whole", what, st.FullScans)
		}
		want, err := replay.List(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := restarted.List(ctx, ws); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: List %+v, %v; want %+v", what, got, err, want)
		}
	}
	same("saved")
	appendFile(t, p, `{"id":"late","timestamp":"2026-11-23T06:00:00.000Z","type":"user","content":[{"text":"late"}]}
{"id":"g3","timestamp":"2026-11-23T06:00:01.000Z","type":"gemini","content":"written again","model":"gemini-2.5-flash"}
{"sessionId":"0b000000-0000-4000-8000-000000000009","projectHash":"other","startTime":"2026-11-24T00:00:00.000Z"}
{"$set":{"lastUpdated":"2026-11-23T06:00:02.000Z"}}
`)
	same("grown")
}
