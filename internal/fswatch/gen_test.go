package fswatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

func watchGen(t *testing.T, w *Watcher, dir string) *Gen {
	t.Helper()
	g, err := w.WatchGen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func now(t *testing.T, g *Gen) uint64 {
	t.Helper()
	n, err := g.Now(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGenCountsEveryChange: each kind of change to an entry, made just
// before Now with no wait, moves the generation; nothing else does. Without
// Now's barrier the event is often still unread when Now looks, and the
// change is missed.
func TestGenCountsEveryChange(t *testing.T) {
	w := New(Config{})
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	write(t, p)
	g := watchGen(t, w, dir)
	defer g.Close()
	open, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	changes := []struct {
		what string
		do   func() error
	}{
		{"append to a file held open", func() error { _, err := open.WriteString("more\n"); return err }},
		{"create", func() error { return os.WriteFile(filepath.Join(dir, "b.jsonl"), nil, 0o600) }},
		{"truncate", func() error { return os.Truncate(p, 1) }},
		{"touch", func() error { return os.Chtimes(p, time.Now(), time.Unix(1, 0)) }},
		{"rename into place", func() error {
			tmp := filepath.Join(t.TempDir(), "c")
			if err := os.WriteFile(tmp, []byte("x\n"), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(dir, "c.jsonl"))
		}},
		{"rename over a file", func() error {
			tmp := filepath.Join(dir, ".tmp")
			if err := os.WriteFile(tmp, []byte("y\n"), 0o600); err != nil {
				return err
			}
			before := now(t, g)
			if err := os.Rename(tmp, p); err != nil {
				return err
			}
			if now(t, g) == before {
				return errors.New("the rename itself was not counted")
			}
			return nil
		}},
		{"delete", func() error { return os.Remove(filepath.Join(dir, "b.jsonl")) }},
	}
	for i := range 20 { // repeated: a missed event would show as a flake
		for _, c := range changes {
			before := now(t, g)
			if again := now(t, g); again != before {
				t.Fatalf("round %d, before %s: generation %d then %d with no change", i, c.what, before, again)
			}
			if err := c.do(); err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			if after := now(t, g); after == before {
				t.Fatalf("round %d: %s did not move the generation", i, c.what)
			}
			os.Remove(filepath.Join(dir, "c.jsonl"))
			if _, err := os.Stat(filepath.Join(dir, "b.jsonl")); err != nil {
				write(t, filepath.Join(dir, "b.jsonl"))
			}
		}
	}
}

// TestGenConcurrent: callers of Now sharing rounds each see the change they
// made just before.
func TestGenConcurrent(t *testing.T) {
	w := New(Config{})
	dir := t.TempDir()
	g := watchGen(t, w, dir)
	defer g.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := filepath.Join(dir, fmt.Sprint(i))
			for j := range 50 {
				before, err := g.Now(context.Background())
				if err != nil {
					errs <- err
					return
				}
				if err := os.WriteFile(p, []byte(fmt.Sprint(j)), 0o600); err != nil {
					errs <- err
					return
				}
				after, err := g.Now(context.Background())
				if err == nil && after == before {
					err = fmt.Errorf("writer %d: write %d not counted", i, j)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestGenReleased: a Gen shares the instance and the directory's kernel
// watch with Watch's subscribers; closing it keeps theirs and releases
// everything of its own (private directory, watches, instance, goroutines:
// goleak checks the last).
func TestGenReleased(t *testing.T) {
	wantInstances(t, 0)
	w := New(Config{})
	dir := t.TempDir()
	s := newSink()
	h := s.watch(t, w, dir)
	g := watchGen(t, w, dir)
	wantInstances(t, 1)
	private := w.bar.dir
	now(t, g)
	g.Close()
	g.Close()
	if _, err := g.Now(context.Background()); !errors.Is(err, ErrLost) {
		t.Errorf("Now of a closed Gen: %v, want ErrLost", err)
	}
	if _, err := os.Stat(private); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private directory outlived the last Gen: %v", err)
	}
	f := filepath.Join(dir, "f")
	write(t, f)
	s.await(t, f)
	h.Close()
	wantInstances(t, 0)
	if len(w.dirs) != 0 || w.bar != nil || w.fw != nil || w.gens != 0 {
		t.Fatalf("left behind: %d dirs, barrier %v, instance %v, %d gens", len(w.dirs), w.bar, w.fw, w.gens)
	}

	// Alone, the same.
	g = watchGen(t, w, dir)
	now(t, g)
	g.Close()
	wantInstances(t, 0)
	if len(w.dirs) != 0 || w.bar != nil || w.fw != nil {
		t.Fatal("a Gen alone left something behind")
	}
}

// TestGenRefused: a refused watch is a *Error and leaves nothing behind;
// so is a missing directory.
func TestGenRefused(t *testing.T) {
	w := New(Config{Refuse: func(string) error { return syscall.ENOSPC }})
	_, err := w.WatchGen(t.TempDir())
	var werr *Error
	if !errors.As(err, &werr) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v, want a *Error with ENOSPC", err)
	}
	if _, err := New(Config{}).WatchGen(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
	wantInstances(t, 0)
	if len(w.dirs) != 0 || w.bar != nil || w.fw != nil {
		t.Fatal("a refused Gen left something behind")
	}
}

// TestGenLost: once the path names another directory, or none, Now says
// so rather than count changes of a directory no one lists.
func TestGenLost(t *testing.T) {
	w := New(Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "d")
	for _, replace := range []struct {
		what string
		do   func() error
	}{
		{"removed", func() error { return os.Remove(dir) }},
		{"moved away", func() error { return os.Rename(dir, dir+".old") }},
		{"replaced by moving its parent", func() error {
			if err := os.Rename(parent, parent+".old"); err != nil {
				return err
			}
			if err := os.Mkdir(parent, 0o700); err != nil {
				return err
			}
			return os.Mkdir(dir, 0o700)
		}},
	} {
		os.RemoveAll(parent + ".old")
		os.RemoveAll(dir + ".old")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		g := watchGen(t, w, dir)
		now(t, g)
		if err := replace.do(); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Now(context.Background()); !errors.Is(err, ErrLost) {
			t.Errorf("%s: Now %v, want ErrLost", replace.what, err)
		}
		g.Close()
		wantInstances(t, 0)
	}
	os.RemoveAll(parent + ".old")
}

// TestGenAfterError: an error of the instance (events lost) moves every
// generation and ends the barrier's round in flight; the next Now works
// on a new barrier.
func TestGenAfterError(t *testing.T) {
	w := New(Config{})
	dir := t.TempDir()
	g := watchGen(t, w, dir)
	defer g.Close()
	before := now(t, g)
	w.mu.Lock()
	fw := w.fw
	w.mu.Unlock()
	w.fanError(fw, ErrOverflow)
	after := now(t, g)
	if after == before {
		t.Fatal("an overflow did not move the generation")
	}
	if again := now(t, g); again != after {
		t.Fatalf("generation %d then %d with no change", after, again)
	}
}

// BenchmarkGenNow: the cost of Now on an unchanged directory, the barrier's
// round trip through the kernel's queue and the dispatcher.
func BenchmarkGenNow(b *testing.B) {
	w := New(Config{})
	g, err := w.WatchGen(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	for b.Loop() {
		if _, err := g.Now(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGenSeen: after one Now of a tree's root, Seen of a directory below
// counts every change made in it before that Now (the root's barrier
// covers the whole instance), and fails once the directory is removed or
// its Gen closed.
func TestGenSeen(t *testing.T) {
	w := New(Config{})
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	g := watchGen(t, w, root)
	defer g.Close()
	s := watchGen(t, w, sub)
	defer s.Close()
	seen := func() uint64 {
		t.Helper()
		now(t, g)
		n, err := s.Seen()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 20 {
		before := seen()
		if again := seen(); again != before {
			t.Fatalf("no change, yet %d then %d", before, again)
		}
		write(t, filepath.Join(sub, fmt.Sprint(i)))
		if after := seen(); after == before {
			t.Fatalf("change %d not counted by Seen right after the root's Now", i)
		}
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	now(t, g)
	if _, err := s.Seen(); !errors.Is(err, ErrLost) {
		t.Fatalf("Seen of a removed directory: %v, want ErrLost", err)
	}
	s.Close()
	if _, err := s.Seen(); !errors.Is(err, ErrLost) {
		t.Fatalf("Seen of a closed Gen: %v, want ErrLost", err)
	}
}

// TestFail: the test hook acts as an error of the instance would: a Gen's
// count moves and a subscriber is told.
func TestFail(t *testing.T) {
	w := New(Config{})
	w.Fail(ErrOverflow) // nothing watched: nothing to tell, no instance started
	if w.fw != nil {
		t.Fatal("Fail started an instance")
	}
	dir := t.TempDir()
	g := watchGen(t, w, dir)
	defer g.Close()
	told := make(chan error, 1)
	h, err := w.Watch(dir, func(Event) {}, func(err error) { told <- err })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	before := now(t, g)
	w.Fail(ErrOverflow)
	if err := <-told; !errors.Is(err, ErrOverflow) {
		t.Fatalf("subscriber told %v, want ErrOverflow", err)
	}
	if after := now(t, g); after == before {
		t.Fatal("Fail did not move the generation")
	}
}
