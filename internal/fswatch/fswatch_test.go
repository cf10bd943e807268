package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// deadline bounds every wait for an event; reaching it is a failure.
const deadline = 10 * time.Second

// sink collects one subscriber's events and errors.
type sink struct {
	events chan Event
	errs   chan error
}

func newSink() *sink { return &sink{events: make(chan Event, maxQueue), errs: make(chan error, 16)} }

func (s *sink) onEvent(ev Event)  { s.events <- ev }
func (s *sink) onError(err error) { s.errs <- err }
func (s *sink) watch(t *testing.T, w *Watcher, dir string) *Handle {
	t.Helper()
	h, err := w.Watch(dir, s.onEvent, s.onError)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// await waits for an event about path.
func (s *sink) await(t *testing.T, path string) {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		select {
		case ev := <-s.events:
			if ev.Name == path {
				return
			}
		case err := <-s.errs:
			t.Fatalf("error while waiting for %s: %v", path, err)
		case <-timer.C:
			t.Fatalf("no event about %s within %s", path, deadline)
		}
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func wantInstances(t *testing.T, want int) {
	t.Helper()
	if got := Instances(); got != want {
		t.Fatalf("%d inotify instances, want %d", got, want)
	}
}

// TestManyDirectoriesOneInstance watches 300 directories, two subscribers
// each: one inotify instance serves them all, every subscriber gets its
// events, and the instance is gone once everything is closed.
func TestManyDirectoriesOneInstance(t *testing.T) {
	wantInstances(t, 0)
	w := New(Config{})
	root := t.TempDir()
	const n = 300
	dirs := make([]string, n)
	sinks := make([][2]*sink, n)
	var handles []*Handle
	for i := range dirs {
		dirs[i] = filepath.Join(root, fmt.Sprint(i))
		if err := os.Mkdir(dirs[i], 0o700); err != nil {
			t.Fatal(err)
		}
		for j := range sinks[i] {
			sinks[i][j] = newSink()
			handles = append(handles, sinks[i][j].watch(t, w, dirs[i]))
		}
	}
	wantInstances(t, 1)
	if got := len(w.dirs); got != n {
		t.Fatalf("%d kernel watches, want %d", got, n)
	}
	for i, d := range dirs {
		f := filepath.Join(d, "t.jsonl")
		write(t, f)
		sinks[i][0].await(t, f)
		sinks[i][1].await(t, f)
	}
	for _, h := range handles {
		h.Close()
	}
	wantInstances(t, 0)
}

// TestSharedDirectory: two subscribers of one directory share its kernel
// watch; the first to close leaves the other's events flowing, and the last
// removes the watch and the instance.
func TestSharedDirectory(t *testing.T) {
	w := New(Config{})
	dir := t.TempDir()
	a, b := newSink(), newSink()
	ha, hb := a.watch(t, w, dir), b.watch(t, w, dir)
	if len(w.dirs) != 1 || len(w.dirs[dir].subs) != 2 {
		t.Fatalf("dirs %v", w.dirs)
	}
	ha.Close()
	ha.Close() // twice is harmless
	f := filepath.Join(dir, "f")
	write(t, f)
	b.await(t, f)
	if len(a.events) > 0 {
		t.Errorf("a closed subscriber got %d events", len(a.events))
	}
	wantInstances(t, 1)
	hb.Close()
	if len(w.dirs) != 0 || w.fw != nil {
		t.Fatalf("after the last close: dirs %v, instance %v", w.dirs, w.fw != nil)
	}
	wantInstances(t, 0)
}

// TestSlowSubscriber: a callback that blocks holds up neither the other
// subscribers of its directory nor those of others, and loses nothing that
// fits its queue.
func TestSlowSubscriber(t *testing.T) {
	w := New(Config{})
	dir, other := t.TempDir(), t.TempDir()
	release := make(chan struct{})
	slow := newSink()
	hs, err := w.Watch(dir, func(ev Event) { <-release; slow.onEvent(ev) }, slow.onError)
	if err != nil {
		t.Fatal(err)
	}
	fast, fast2 := newSink(), newSink()
	hf, hf2 := fast.watch(t, w, dir), fast2.watch(t, w, other)
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprint(i))
		write(t, f)
		fast.await(t, f)
	}
	f := filepath.Join(other, "x")
	write(t, f)
	fast2.await(t, f)
	close(release)
	for i := range 3 {
		slow.await(t, filepath.Join(dir, fmt.Sprint(i)))
	}
	for _, h := range []*Handle{hs, hf, hf2} {
		h.Close()
	}
	wantInstances(t, 0)
}

// TestOverflow: a subscriber stuck longer than maxQueue events loses the
// excess and is told so with ErrOverflow, so it can look afresh.
func TestOverflow(t *testing.T) {
	w := New(Config{})
	dir := t.TempDir()
	release := make(chan struct{})
	errs := make(chan error, 1)
	var got int
	h, err := w.Watch(dir, func(Event) { <-release; got++ }, func(err error) { errs <- err })
	if err != nil {
		t.Fatal(err)
	}
	d := w.dirs[dir]
	w.mu.Lock()
	for range maxQueue + 10 {
		for s := range d.subs {
			s.push(item{ev: Event{Name: filepath.Join(dir, "f"), Op: Write}})
		}
	}
	w.mu.Unlock()
	close(release)
	select {
	case err := <-errs:
		if !errors.Is(err, ErrOverflow) {
			t.Fatalf("error %v, want ErrOverflow", err)
		}
	case <-time.After(deadline):
		t.Fatal("no overflow error")
	}
	h.Close()
	// The queue holds maxQueue; one more may already be in the callback.
	if got < maxQueue || got > maxQueue+1 {
		t.Errorf("%d events delivered, want %d", got, maxQueue)
	}
}

// TestErrorsReachEverySubscriber: an error of the instance goes to the
// subscribers of every directory.
func TestErrorsReachEverySubscriber(t *testing.T) {
	w := New(Config{})
	a, b := newSink(), newSink()
	ha, hb := a.watch(t, w, t.TempDir()), b.watch(t, w, t.TempDir())
	boom := errors.New("boom")
	w.fanError(w.fw, boom)
	for _, s := range []*sink{a, b} {
		select {
		case err := <-s.errs:
			if err != boom {
				t.Errorf("got %v", err)
			}
		case <-time.After(deadline):
			t.Fatal("a subscriber got no error")
		}
	}
	ha.Close()
	hb.Close()
}

// TestRefused: a watch the kernel refuses is an error that names the limit,
// and leaves no instance behind.
func TestRefused(t *testing.T) {
	w := New(Config{Refuse: func(string) error { return syscall.ENOSPC }})
	_, err := w.Watch(t.TempDir(), func(Event) {}, func(error) {})
	var werr *Error
	if !errors.As(err, &werr) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "max_user_watches") {
		t.Fatalf("error %v, want a *Error about max_user_watches", err)
	}
	if w.fw != nil {
		t.Fatal("the instance outlived a refused first watch")
	}
	wantInstances(t, 0)

	emfile := &Error{Dir: "/x", Err: fmt.Errorf("couldn't initialize inotify: %w", syscall.EMFILE)}
	if !strings.Contains(emfile.Reason(), "max_user_instances") {
		t.Errorf("EMFILE reason %q", emfile.Reason())
	}
	if _, err := New(Config{}).Watch(filepath.Join(t.TempDir(), "missing"), func(Event) {}, func(error) {}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v, want ErrNotExist", err)
	}
	wantInstances(t, 0)
}

// TestRecreatedDirectory: once a watched directory is removed the kernel
// drops its watch; a later Watch of the recreated directory adds it again.
func TestRecreatedDirectory(t *testing.T) {
	w := New(Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	a := newSink()
	ha := a.watch(t, w, dir)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	a.await(t, dir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b := newSink()
	hb := b.watch(t, w, dir)
	f := filepath.Join(dir, "f")
	write(t, f)
	b.await(t, f)
	ha.Close()
	hb.Close()
	wantInstances(t, 0)
}
