package jsonl

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/internal/fswatch"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitTimeout bounds every wait for the watcher; reaching it is a failure.
const waitTimeout = 10 * time.Second

// followed is a running Follow whose lines and log messages arrive on
// channels.
type followed struct {
	t     *testing.T
	lines chan splitLine
	logs  chan string
	c     io.Closer
}

// follow follows path through w; onLine, when set, runs before each line is
// passed on. The follower is closed at cleanup.
func follow(t *testing.T, ctx context.Context, w *fswatch.Watcher, path string, onLine func()) *followed {
	t.Helper()
	fl := &followed{t: t, lines: make(chan splitLine, 100), logs: make(chan string, 10000)}
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.DebugLevel),
		zap.Hooks(func(e zapcore.Entry) error { fl.logs <- e.Message; return nil }))
	c, err := Follow(ctx, w, path, "test", func(off int64, b []byte) {
		if onLine != nil {
			onLine()
		}
		fl.lines <- splitLine{off, string(b)}
	}, log)
	if err != nil {
		t.Fatal(err)
	}
	fl.c = c
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return fl
}

// expect waits for the next lines, given as "offset:text".
func (fl *followed) expect(want ...string) {
	fl.t.Helper()
	deadline := time.After(waitTimeout)
	for _, w := range want {
		select {
		case l := <-fl.lines:
			if got := fmt.Sprintf("%d:%s", l.off, l.text); got != w {
				fl.t.Fatalf("got line %s, want %s", got, w)
			}
		case <-deadline:
			fl.t.Fatalf("timed out waiting for line %s", w)
		}
	}
}

// expectLog waits until the follower logs a message starting with prefix.
func (fl *followed) expectLog(prefix string) {
	fl.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case l := <-fl.logs:
			if strings.HasPrefix(l, prefix) {
				return
			}
		case <-deadline:
			fl.t.Fatalf("timed out waiting for log %q", prefix)
		}
	}
}

// expectNone checks that no line arrived after all.
func (fl *followed) expectNone() {
	fl.t.Helper()
	select {
	case l := <-fl.lines:
		fl.t.Errorf("unexpected line %d:%s", l.off, l.text)
	default:
	}
}

func replaceFile(t *testing.T, p, s string) {
	t.Helper()
	tmp := p + ".tmp"
	writeFile(t, tmp, s)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// TestFollow follows a file from its end through growth in pieces, a
// truncation, a replacement and a removal followed by a re-creation, then
// stops with Close. The lines that mark each step prove the earlier step
// was taken in order, since lines arrive in order.
func TestFollow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	writeFile(t, p, "old\nto") // a torn last line is read once complete
	fl := follow(t, context.Background(), nil, p, nil)

	appendFile(t, p, "rn\nab")
	appendFile(t, p, "c\nd\n")
	fl.expect("4:torn", "9:abc", "13:d")

	// Truncated: followed from its new end.
	if err := os.Truncate(p, 4); err != nil {
		t.Fatal(err)
	}
	fl.expectLog("test truncated")
	appendFile(t, p, "e\n")
	fl.expect("4:e")

	// Replaced: the new file is read from its start.
	replaceFile(t, p, "f\ng\n")
	fl.expect("0:f", "2:g")
	appendFile(t, p, "h\n")
	fl.expect("4:h")

	// Removed, then created again: read from its start.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "i\n")
	fl.expect("0:i")

	fl.c.Close()
	appendFile(t, p, "j\n")
	fl.expectNone()
}

// TestFollowLateCreation: a file that does not exist yet is read from its
// start once created; ending ctx stops the follower (goleak checks that
// nothing is left).
func TestFollowLateCreation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	fl := follow(t, ctx, nil, p, nil)
	writeFile(t, p, "a\nb\n")
	fl.expect("0:a", "2:b")
	cancel()
	fl.c.Close() // waits for the ctx's close too
}

// TestFollowNoDir: a directory that does not exist cannot be watched.
func TestFollowNoDir(t *testing.T) {
	if _, err := Follow(context.Background(), nil, filepath.Join(t.TempDir(), "no", "f.jsonl"), "test", func(int64, []byte) {}, nil); err == nil {
		t.Fatal("Follow in a missing directory succeeded")
	}
}

// TestFollowOverflow: while the follower is stuck in a callback, so many
// events pile up that the watcher drops the file's replacement and reports
// an overflow; the follower looks afresh then, and reads the new file. The
// replacement's lines arrive only through that re-reading: no other event
// follows. (Without the re-reading it fails: checked.)
func TestFollowOverflow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.jsonl")
	writeFile(t, p, "")
	w := fswatch.New(fswatch.Config{})
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	fl := follow(t, context.Background(), w, p, func() {
		if first {
			first = false
			close(entered)
			<-release
		}
	})
	appendFile(t, p, "a\n")
	select {
	case <-entered:
	case <-time.After(waitTimeout):
		t.Fatal("first line not read")
	}
	// More events than a subscriber's queue holds (fswatch's maxQueue,
	// 4096), far fewer than the kernel's queue does.
	for i := range 3000 {
		q := filepath.Join(dir, fmt.Sprintf("noise%d", i))
		writeFile(t, q, "")
		if err := os.Remove(q); err != nil {
			t.Fatal(err)
		}
	}
	// Another subscriber of the same watcher sees the replacement only
	// after the follower's queue was offered it (and, being full, dropped
	// it): only then may the follower go on.
	replaced := make(chan struct{}, 1)
	h, err := w.Watch(dir, func(ev fswatch.Event) {
		if filepath.Clean(ev.Name) == p && ev.Has(fswatch.Create) {
			replaced <- struct{}{}
		}
	}, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	replaceFile(t, p, "b\nc\n")
	select {
	case <-replaced:
	case <-time.After(waitTimeout):
		t.Fatal("replacement not seen")
	}
	close(release)
	fl.expect("0:a")
	fl.expectLog("test watch error")
	fl.expect("0:b", "2:c")
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
