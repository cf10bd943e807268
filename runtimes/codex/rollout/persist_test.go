package rollout

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// served is what a Store serves of thread A in ws: a page read backwards,
// the total, and the workspace's history.
func served(t *testing.T, s *Store, ws string) string {
	t.Helper()
	ctx := context.Background()
	page, total, err := s.Messages(ctx, ws, threadA, 3, 50, true)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page {
		ids = append(ids, m.ID)
	}
	list, err := s.List(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // as the daemon stops: the index saves under way end
	return fmt.Sprint(total, ids, list)
}

// idxFile is the one index persisted in cache.
func idxFile(t *testing.T, cache string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(m) != 1 {
		t.Fatalf("persisted indexes: %v", m)
	}
	return m[0]
}

func rewrite(t *testing.T, p string, b []byte, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestPersistedIndex: a Store started on the cache directory of another (a
// daemon restart) serves a big rollout from the persisted index while it
// still describes the file (reading only what was appended since), and
// otherwise scans the rollout again; whatever is on disk, what is served is
// what a Store without a cache serves.
func TestPersistedIndex(t *testing.T) {
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, c := range []struct {
		name     string
		change   func(t *testing.T, p, cache string)
		wantFull bool
	}{
		{"unchanged", func(*testing.T, string, string) {}, false},
		{"grown since", func(t *testing.T, p, _ string) {
			appendFile(t, p, `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"msg_new","content":[{"type":"Text","text":"new"}]}}}`+"\n")
		}, false},
		{"shorter", func(t *testing.T, p, _ string) {
			b, _ := os.ReadFile(p)
			rewrite(t, p, b[:len(b)/2], mtime)
			appendFile(t, p, "\n")
		}, true},
		{"rewritten in place, same size and time", func(t *testing.T, p, _ string) {
			// Every line moves on; the last one is cut short.
			b, _ := os.ReadFile(p)
			shift := `{"type":"turn_context","payload":{}}` + "\n"
			rewrite(t, p, append([]byte(shift), b[:len(b)-len(shift)]...), mtime)
		}, true},
		{"replaced under the same name", func(t *testing.T, p, _ string) {
			// Another first prompt, same size, before the checksummed tail:
			// only the inode tells.
			b, _ := os.ReadFile(p)
			i := bytes.Index(b, []byte(`"prompt 0"`))
			b[i+len(`"prompt `)] = 'X'
			rewrite(t, p+".new", b, mtime)
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"persisted index corrupt", func(t *testing.T, _, cache string) {
			p := idxFile(t, cache)
			b, _ := os.ReadFile(p)
			b[len(b)-10] ^= 0x10
			rewrite(t, p, b, time.Now())
		}, true},
		{"persisted index truncated", func(t *testing.T, _, cache string) {
			p := idxFile(t, cache)
			b, _ := os.ReadFile(p)
			rewrite(t, p, b[:len(b)/2], time.Now())
		}, true},
		{"persisted index empty", func(t *testing.T, _, cache string) { rewrite(t, idxFile(t, cache), nil, time.Now()) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, ws, cache := t.TempDir(), t.TempDir(), t.TempDir()
			p := writeBig(t, home, ws, threadA, 2<<20)
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			before := served(t, newStore(t, home).WithCacheDir(cache), ws)
			idxFile(t, cache)
			c.change(t, p, cache)
			for i, wantFull := range []bool{c.wantFull, false} { // and what the restart saved serves too
				s := newStore(t, home).WithCacheDir(cache)
				got, want := served(t, s, ws), served(t, newStore(t, home), ws)
				if got != want {
					t.Errorf("restart %d served\n%.300s\nwant\n%.300s", i, got, want)
				}
				if full := s.Stats().FullScans > 0; full != wantFull {
					t.Errorf("restart %d: full scan %v, want %v", i, full, wantFull)
				}
			}
			if c.name == "unchanged" {
				if after := served(t, newStore(t, home), ws); after != before {
					t.Errorf("unchanged file served differently")
				}
			}
		})
	}
}

// TestMessagesRewrittenInPlace: a rollout rewritten in place with its size
// and modification time kept (its lines moved) is detected when a page is
// read: no page of the old offsets is served, and the next call indexes the
// file as it is.
func TestMessagesRewrittenInPlace(t *testing.T) {
	for _, cacheDir := range []bool{false, true} {
		home, ws := t.TempDir(), t.TempDir()
		s := newStore(t, home)
		if cacheDir {
			s.WithCacheDir(t.TempDir())
		}
		mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
		p := writeBig(t, home, ws, threadA, 2<<20)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, _, err := s.Messages(ctx, ws, threadA, 0, 4, true); err != nil {
			t.Fatal(err)
		}
		if _, err := s.List(ctx, ws); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		shift := `{"type":"turn_context","payload":{}}` + "\n"
		b = append([]byte(shift), b[:len(b)-len(shift)]...)
		b = bytes.Replace(b, []byte(`"prompt 0"`), []byte(`"prompt X"`), 1) // and another summary
		rewrite(t, p, b, mtime)
		page := func(s *Store) (string, error) {
			m, total, err := s.Messages(ctx, ws, threadA, 0, 4, true)
			var ids []string
			for _, m := range m {
				ids = append(ids, m.ID)
			}
			return fmt.Sprint(total, ids), err
		}
		want, err := page(newStore(t, home))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := page(s); err == nil && got != want {
			t.Errorf("cache dir %v: served %s from the old offsets; want %s", cacheDir, got, want)
		}
		if got, err := page(s); err != nil || got != want {
			t.Errorf("cache dir %v: then %s, %v; want %s", cacheDir, got, err, want)
		}
		got, _ := s.List(ctx, ws)
		if fresh, _ := newStore(t, home).List(ctx, ws); fmt.Sprint(got) != fmt.Sprint(fresh) {
			t.Errorf("cache dir %v: then List %v; want %v", cacheDir, got, fresh)
		}
	}
}

// TestBigRolloutInParts: a rollout big enough to be indexed in parts (one
// per core) is indexed as the decoder reads it line by line: count, the
// newest page, the summary.
func TestBigRolloutInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // at least two parts
	home, ws := t.TempDir(), t.TempDir()
	p := writeBig(t, home, ws, threadA, 17<<20)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var split jsonl.Splitter
	split.Feed(b, func(off int64, line []byte) {
		if l, err := ParseLine(line); err == nil {
			if m, ok := ToMessage(threadA, off, l); ok {
				want = append(want, m.ID)
			}
		}
	})
	slices.Reverse(want)
	s := newStore(t, home)
	page, total, err := s.Messages(context.Background(), ws, threadA, 0, 50, true)
	if err != nil || total != len(want) || len(page) != 50 {
		t.Fatalf("%d of %d, %v; want 50 of %d", len(page), total, err, len(want))
	}
	for i, m := range page {
		if m.ID != want[i] {
			t.Fatalf("message %d: %s, want %s", i, m.ID, want[i])
		}
	}
	list, err := s.List(context.Background(), ws)
	if err != nil || len(list) != 1 || list[0].Summary != "prompt 0" || list[0].MessageCount != total {
		t.Errorf("List: %+v, %v", list, err)
	}
}
