package acp

// Capturing the goldens (-capture): the real gemini --acp run for each
// case against the fake API, its stdout scrubbed of run-specific values.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// TestCaptureGemini runs the real CLI for every case and rewrites the
// captures; only with -capture.
func TestCaptureGemini(t *testing.T) {
	if !*captureGemini {
		t.Skip("captures are rewritten only with -capture")
	}
	if err := os.MkdirAll(goldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range geminiCases {
		t.Run(c.name, func(t *testing.T) {
			b := capture(t, c)
			if err := os.WriteFile(filepath.Join(goldenDir, c.name+".jsonl"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// capture runs c against the real CLI and returns its stdout lines,
// scrubbed.
func capture(t *testing.T, c geminiCase) []byte {
	api := fakegemini.New(t)
	ws := workspace(t)
	rs := c.replies(ws)
	var n atomic.Int32
	api.Respond(func(fakegemini.Request) fakegemini.Reply {
		return rs[min(int(n.Add(1))-1, len(rs)-1)]
	})
	for name, text := range c.files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := geminitest.Env(t, api.URL())
	a := New(Spec{ID: "gemini", DisplayName: "Gemini CLI", Command: geminitest.Bin(t), Args: []string{"--acp"}, Env: env,
		Modes:     map[rpc.PermissionMode]string{rpc.PermissionDefault: "", rpc.PermissionBypass: "yolo"},
		KillGrace: 5 * time.Second, Logger: zaptest.NewLogger(t)})
	var mu sync.Mutex
	var lines [][]byte
	a.tap = func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, append([]byte(nil), line...))
	}
	req := runtimes.StartRequest{Dir: ws}
	if c.yolo {
		req.PermissionMode = rpc.PermissionBypass
		// Gemini refuses yolo in a folder the user does not trust.
		trust, _ := json.Marshal(map[string]string{ws: "TRUST_FOLDER"})
		if err := os.WriteFile(filepath.Join(geminitest.Home(env), ".gemini", "trustedFolders.json"), trust, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if c.resume {
		s, rec := start(t, a, req)
		drive(t, c, s, rec)
		closeSession(t, s)
		backdate(t, env, s.ID())
		mu.Lock()
		lines = nil // the earlier process is not the capture
		mu.Unlock()
		req = runtimes.StartRequest{Dir: ws, SessionID: s.ID(), Resume: true}
	}
	s, rec := start(t, a, req)
	if !c.resume {
		drive(t, c, s, rec)
	}
	closeSession(t, s)
	mu.Lock()
	defer mu.Unlock()
	b := append(bytes.Join(lines, []byte("\n")), '\n')
	return scrub(t, b, filepath.Dir(ws), map[string]string{
		ws: wsMark, kit.LookupEnv(env, "TMPDIR"): tmpMark, geminitest.Home(env): homeMark, s.ID(): sessionMark,
	})
}

// drive sends c's prompt and acts on the events as c says, until the turn
// ends.
func drive(t *testing.T, c geminiCase, s runtimes.Session, rec *recorder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), geminitest.Timeout)
	defer cancel()
	if err := s.Send(ctx, runtimes.Turn{Prompt: c.prompt}); err != nil {
		t.Fatal(err)
	}
	interrupted := false
	timeout := time.After(geminitest.Timeout)
	for {
		var ev runtimes.Event
		select {
		case ev = <-rec.ch:
		case <-timeout:
			t.Fatal("the turn did not end")
		}
		if isTurnEnd(ev) {
			return
		}
		answer, interrupt := c.react(ev, interrupted)
		switch {
		case interrupt:
			interrupted = true
			if err := s.Interrupt(ctx); err != nil {
				t.Fatal(err)
			}
		case answer != nil:
			if err := s.Respond(ctx, ev.(runtimes.PromptRequested).RequestID, *answer); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func closeSession(t *testing.T, s runtimes.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// chatStamp is the minute in a chat file's name.
var chatStamp = regexp.MustCompile(`^session-(\d{4}-\d\d-\d\dT\d\d-\d\d)-`)

// backdate renames the session's chat files as if begun two minutes
// earlier: Gemini loses a session's history when it is loaded in the
// minute its file was begun (CLI-PROTOCOLS.md 2.7), and a capture should
// not wait for the clock.
func backdate(t *testing.T, env []string, id string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(geminitest.Home(env), ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no chat file for %s (%v)", id, err)
	}
	for _, f := range files {
		m := chatStamp.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("chat file name %s", f)
		}
		at, err := time.Parse("2006-01-02T15-04", m[1])
		if err != nil {
			t.Fatal(err)
		}
		name := strings.Replace(filepath.Base(f), m[1], at.Add(-2*time.Minute).Format("2006-01-02T15-04"), 1)
		if err := os.Rename(f, filepath.Join(filepath.Dir(f), name)); err != nil {
			t.Fatal(err)
		}
	}
}

// Run-specific values that are not paths: Gemini's tool call ids end in
// the call's Unix time in milliseconds, and its session context names
// the day.
var (
	toolStamp = regexp.MustCompile(`(__[a-z_]+_)(\d{13})(_\d+)`)
	today     = regexp.MustCompile(`Today's date is [^.\\]*`)
)

// scrub replaces run-specific values with placeholders: marks maps each
// value to its placeholder (longest values first, so that a path is
// replaced before a directory that holds it). Nothing under tmpRoot, the
// test's temporary directory, may be left.
func scrub(t *testing.T, b []byte, tmpRoot string, marks map[string]string) []byte {
	t.Helper()
	var vals []string
	for v := range marks {
		if v == "" {
			t.Fatal("scrub: an empty value")
		}
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		b = bytes.ReplaceAll(b, []byte(v), []byte(marks[v]))
	}
	stamps := map[string]string{}
	b = toolStamp.ReplaceAllFunc(b, func(m []byte) []byte {
		p := toolStamp.FindSubmatch(m)
		st, ok := stamps[string(p[2])]
		if !ok {
			st = fmt.Sprintf("17000000000%02d", len(stamps)+1)
			stamps[string(p[2])] = st
		}
		return []byte(string(p[1]) + st + string(p[3]))
	})
	b = today.ReplaceAll(b, []byte("Today's date is (date)"))
	if bytes.Contains(b, []byte(tmpRoot)) {
		t.Errorf("a temporary path is left in the capture:\n%s", b)
	}
	return b
}
