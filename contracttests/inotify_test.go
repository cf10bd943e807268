package contracttests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// appendMessage appends one user message line to a scripted transcript, as
// the fake CLI run outside cdevd would.
func appendMessage(t *testing.T, path, sessionID, text string) {
	t.Helper()
	b, err := json.Marshal(rpc.Message{ID: fmt.Sprintf("%s-%d", sessionID, time.Now().UnixNano()), SessionID: sessionID,
		Type: rpc.MessageUser, Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		Message: rpc.MessageBody{Role: "user", Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: text}}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// TestOneInotifyInstance: 300 subscribed workspaces (more than the usual
// per-user limit of 128 inotify instances) and tails of 50 external
// sessions use one inotify instance; every subscription and every tail
// still gets its events; and the instance is released once the clients
// are gone. Before the shared watcher each subscription took an instance:
// past the limit, subscribe succeeded and nothing arrived.
func TestOneInotifyInstance(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	if n := fswatch.Instances(); n != 0 {
		t.Fatalf("%d inotify instances before the test", n)
	}
	admin, sub, watcher := e.connect(ctx), e.connect(ctx), e.connect(ctx)
	transcripts := scripted.New(e.scripted).Transcripts()
	folder := folderOf(transcripts)
	const workspaces, tails = 300, 50
	files := make([]string, workspaces)
	ids := make([]string, workspaces)
	for i := range workspaces {
		w := e.workspace(ctx, admin)
		dir := folder(w.Path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		ids[i] = fmt.Sprintf("ext-%03d", i)
		files[i] = filepath.Join(dir, ids[i]+".jsonl")
		appendMessage(t, files[i], ids[i], "before")
		sub.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
		if i < tails {
			watcher.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: ids[i]}, nil)
		}
	}
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances for %d subscriptions and %d tails, want 1", n, workspaces, tails)
	}
	for i := range workspaces {
		appendMessage(t, files[i], ids[i], "after")
	}
	for i := range workspaces {
		await(t, ctx, sub, rpc.EventSessionUpdated, ids[i])
		if i < tails {
			await(t, ctx, watcher, rpc.EventMessage, ids[i])
		}
	}
	sub.Close()
	watcher.Close()
	pollUntil(t, ctx, "the inotify instance released once no one watches", func() bool { return fswatch.Instances() == 0 })
}

// TestRefusedWatchIsAnError: when the system refuses a watch (here ENOSPC,
// as when fs.inotify.max_user_watches is used up), workspace/subscribe and
// workspace/session/watch fail with the reason instead of succeeding
// silently, and the subscription is not recorded.
func TestRefusedWatchIsAnError(t *testing.T) {
	refusing := fswatch.New(fswatch.Config{Refuse: func(string) error { return syscall.ENOSPC }})
	e := startEnv(t, func(dc *daemon.Config, sc *scripted.Config) {
		dc.Sessions.Watcher, sc.Watcher = refusing, refusing
	})
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	dir := folderOf(scripted.New(e.scripted).Transcripts())(w.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	appendMessage(t, filepath.Join(dir, "ext.jsonl"), "ext", "hello")

	checkRefused := func(what string, rerr *rpc.Error) {
		t.Helper()
		wantError(t, what, rerr, rpc.CodeInternalError)
		if reason, _ := errData(t, rerr)["reason"].(string); !strings.Contains(reason, "max_user_watches") {
			t.Errorf("%s: reason %q does not name the limit", what, reason)
		}
	}
	_, rerr := c.Call(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	checkRefused("subscribe", rerr)
	_, rerr = c.Call(ctx, rpc.MethodWorkspaceSubscribeAll, nil)
	checkRefused("subscribeAll", rerr)
	var subs rpc.SubscriptionsResult
	c.MustCall(ctx, rpc.MethodWorkspaceSubscriptions, nil, &subs)
	if len(subs.Workspaces) != 0 {
		t.Errorf("a refused subscription was recorded: %v", subs.Workspaces)
	}
	_, rerr = c.Call(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: "ext"})
	checkRefused("watch of an external session", rerr)
	// The server and the connection go on.
	c.MustCall(ctx, rpc.MethodWorkspaceList, nil, nil)
	if n := fswatch.Instances(); n != 0 {
		t.Errorf("%d inotify instances left after refusals", n)
	}
}
