package client_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// A client connects with the URL and token `cdevd serve` prints, reads the
// runtime registry, starts a session, watches it and sends a prompt. (Here
// the server is started in process with a scripted runtime.)
func Example() {
	home, _ := os.MkdirTemp("", "cdevd-example")
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := daemon.Start(daemon.Config{Home: home, Addr: "127.0.0.1:0", Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: filepath.Join(home, "state")})}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Shutdown(ctx) //nolint:errcheck // the example's end

	c, err := client.Dial(ctx, client.Config{URL: d.URL(), Token: d.Token()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for _, r := range c.Initialized().Capabilities.RuntimeRegistry.Runtimes {
		fmt.Println("runtime:", r.ID, r.Status)
	}
	w, _ := c.WorkspaceAdd(ctx, rpc.WorkspaceAddParams{Path: home})
	s, _ := c.SessionStart(ctx, rpc.SessionStartParams{WorkspaceID: w.ID})
	_, _ = c.Watch(ctx, rpc.WatchParams{WorkspaceID: w.ID, SessionID: s.SessionID})
	_, _ = c.SessionSend(ctx, rpc.SessionSendParams{SessionID: s.SessionID, Prompt: `{"steps":[{"message":"hi there"}]}`})
	for ev := range c.Events() {
		var m rpc.MessageEvent
		if ev.Type() == rpc.EventMessage && ev.Decode(&m) == nil && m.Type == rpc.MessageAssistant {
			fmt.Println("assistant:", m.Message.Content[0].Text)
		}
		if ev.Type() == rpc.EventTurnCompleted {
			break
		}
	}
	// Output:
	// runtime: scripted active
	// assistant: hi there
}
