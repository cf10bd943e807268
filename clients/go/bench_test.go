package client_test

import (
	"context"
	"os"
	"testing"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// BenchmarkCall is a workspace/list round trip against cdevd in process,
// for what the client's framing costs beside the server's work.
func BenchmarkCall(b *testing.B) {
	sc := scripted.Config{Bin: os.Args[0], StateDir: b.TempDir()}
	d := contracttests.StartDaemon(b, daemon.Config{Adapters: []runtimes.Adapter{scripted.New(sc)}})
	ctx := context.Background()
	c, err := client.Dial(ctx, client.Config{URL: d.URL(), Token: d.Token()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.WorkspaceList(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
