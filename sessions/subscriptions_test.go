package sessions

// Workspace subscriptions: lifecycle events, and sessions run outside
// cdevd noticed through their transcripts.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestWorkspaceSubscribersGetLifecycle(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if ids, err := e.Subscribe(sub, wsID); err != nil || len(ids) != 1 {
		t.Fatalf("subscribe = %v, %v", ids, err)
	}
	id, _ := start(t, e, a, newRecorder("owner"), wsID)
	if ev := sub.await(t, "event/session_start"); ev["session_id"] != id {
		t.Fatalf("session_start = %v", ev)
	}
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	sub.await(t, "event/session_stopped")
	if sub.count("event/pty_state") != 0 {
		t.Fatal("subscribers get lifecycle events, not every event")
	}
}

func TestSubscribersNoticeSessionsRunOutside(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if _, err := e.Subscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	// A CLI in a terminal writes its transcript.
	if err := os.WriteFile(filepath.Join(a.dir, "ext-1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := sub.await(t, "event/session_updated")
	if ev["session_id"] != "ext-1" || ev["agent_type"] != "mem" || ev["summary"] != "outside" {
		t.Fatalf("session_updated = %v", ev)
	}
	if _, err := e.Unsubscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	e.subMu.Lock()
	left := len(e.notifiers)
	e.subMu.Unlock()
	if left != 0 {
		t.Fatal("transcript watcher outlived its last subscriber")
	}
}

func TestSubscribersNoticeATranscriptDirectoryCreatedLater(t *testing.T) {
	parent := t.TempDir()
	a := &transcriptMem{memAdapter: newMem(), dir: filepath.Join(parent, "not-yet")}
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if _, err := e.Subscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	// The runtime runs here for the first time: it makes its directory.
	if err := os.Mkdir(a.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.dir, "first.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ev := sub.await(t, "event/session_updated"); ev["session_id"] != "first" {
		t.Fatalf("session_updated = %v", ev)
	}
}
