package transcript

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// tailed is a running Tail whose messages arrive on a channel.
type tailed struct {
	t    *testing.T
	msgs chan rpc.Message
	logs chan string // messages the tailer logged
}

// startTail tails session idA of workDir in projects; the tailer is closed
// at cleanup. The tailer's log messages are passed on to tl.logs so tests
// can wait for what it noticed.
func startTail(t *testing.T, ctx context.Context, projects string) *tailed {
	t.Helper()
	tl := &tailed{t: t, msgs: make(chan rpc.Message, 100), logs: make(chan string, 100)}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.DebugLevel)
	log := zap.New(core, zap.Hooks(func(e zapcore.Entry) error {
		tl.logs <- e.Message
		return nil
	}))
	c, err := New(projects, log).Tail(ctx, workDir, idA, func(m rpc.Message) { tl.msgs <- m })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return tl
}

// expect waits for the next messages and checks their uuids.
func (tl *tailed) expect(uuids ...string) {
	tl.t.Helper()
	deadline := time.After(waitTimeout)
	for _, want := range uuids {
		select {
		case m := <-tl.msgs:
			if m.UUID != want || m.SessionID != idA {
				tl.t.Fatalf("got message %s of session %s, want %s of %s", m.UUID, m.SessionID, want, idA)
			}
		case <-deadline:
			tl.t.Fatalf("timed out waiting for message %s", want)
		}
	}
}

// expectLog waits until the tailer logs a message starting with prefix.
func (tl *tailed) expectLog(prefix string) {
	tl.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case l := <-tl.logs:
			if strings.HasPrefix(l, prefix) {
				return
			}
		case <-deadline:
			tl.t.Fatalf("timed out waiting for log %q", prefix)
		}
	}
}

// session returns the projects dir of a new store layout and idA's path.
func session(t *testing.T) (projects, path string) {
	t.Helper()
	projects = t.TempDir()
	return projects, filepath.Join(New(projects, nil).Dir(workDir), idA+".jsonl")
}

func TestTailAppends(t *testing.T) {
	projects, p := session(t)
	g := newGen(idA)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, g.lines(2))
	tl := startTail(t, context.Background(), projects)

	// Only what comes after Tail starts, one write per line as the CLI does.
	for range 3 {
		appendFile(t, p, g.message()+"\n")
		appendFile(t, p, g.noise()+"\n")
	}
	tl.expect(want(2, 4)...)

	// A line longer than a read arrives whole.
	g.pad = strings.Repeat("x", 2*jsonl.ChunkSize)
	appendFile(t, p, g.message()+"\n")
	select {
	case m := <-tl.msgs:
		if m.UUID != msgUUID(5) || len(m.Message.Content[0].Text) != len("message 5")+2*jsonl.ChunkSize {
			t.Errorf("got %s with %d bytes of text", m.UUID, len(m.Message.Content[0].Text))
		}
	case <-time.After(waitTimeout):
		t.Fatal("timed out waiting for the long message")
	}
}

func TestTailHoldsPartialLine(t *testing.T) {
	projects, p := session(t)
	g := newGen(idA)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	// A line torn when Tail starts is delivered once complete.
	before := g.lines(1)
	torn := g.message()
	appendFile(t, p, before+torn[:10])
	tl := startTail(t, context.Background(), projects)
	appendFile(t, p, torn[10:]+"\n")
	tl.expect(msgUUID(1))

	// One write ends a message and starts the next: once the first arrives,
	// the tailer has read the torn start of the second.
	m2, m3 := g.message(), g.message()
	appendFile(t, p, m2+"\n"+m3[:len(m3)/2])
	tl.expect(msgUUID(2))
	appendFile(t, p, m3[len(m3)/2:]+"\n")
	tl.expect(msgUUID(3))
}

func TestTailTruncation(t *testing.T) {
	projects, p := session(t)
	g := newGen(idA)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, g.lines(3))
	tl := startTail(t, context.Background(), projects)
	appendFile(t, p, g.message()+"\n")
	tl.expect(msgUUID(3))

	keep := newGen(idA).lines(1) // the file is cut back to its first line
	if err := os.Truncate(p, int64(len(keep))); err != nil {
		t.Fatal(err)
	}
	tl.expectLog("transcript truncated")
	appendFile(t, p, g.message()+"\n")
	tl.expect(msgUUID(4)) // not the cut-off messages again
}

func TestTailReplacement(t *testing.T) {
	projects, p := session(t)
	g := newGen(idA)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, g.lines(1))
	tl := startTail(t, context.Background(), projects)

	// Another file renamed into place is read from its start.
	tmp := p + ".tmp"
	appendFile(t, tmp, g.lines(2))
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	tl.expect(msgUUID(1), msgUUID(2))
	appendFile(t, p, g.message()+"\n")
	tl.expect(msgUUID(3))

	// Removed, then created again.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, g.message()+"\n")
	tl.expect(msgUUID(4))
}

// TestTailFileCreatedLater: a new session's transcript (and even its
// workspace folder) appears only with its first turn.
func TestTailFileCreatedLater(t *testing.T) {
	projects, p := session(t)
	tl := startTail(t, context.Background(), projects)
	g := newGen(idA)
	appendFile(t, p, g.lines(2))
	tl.expect(want(0, 1)...)
}

// TestTailStops: cancelling the context ends the tailer; Close still waits
// for it and may be called again. goleak (TestMain) checks nothing is left.
func TestTailStops(t *testing.T) {
	projects, _ := session(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(projects, nil).Tail(ctx, workDir, idA, func(rpc.Message) {})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(projects, nil).Tail(context.Background(), workDir, "../x", func(rpc.Message) {}); err == nil {
		t.Error("Tail accepted session id ../x")
	}
}
