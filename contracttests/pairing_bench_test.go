package contracttests

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// storedDevices is how many paired devices the upgrade benchmark's cdevd
// keeps besides the one it connects as.
const storedDevices = 1000

// BenchmarkUpgrade is one WebSocket upgrade (dial, authenticate, upgrade,
// close) with the owner's static token and with a paired device's access
// token, on a cdevd that keeps storedDevices devices: a device token may
// cost at most 10% more (issue 25).
func BenchmarkUpgrade(b *testing.B) {
	if _, _, ok := external(); ok {
		b.Skipf("benchmarks run cdevd in process; %s targets an external server", envURL)
	}
	home := b.TempDir()
	st, err := auth.OpenStore(daemon.DeviceFile(home), nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range storedDevices {
		if _, _, err := st.Add("device "+strconv.Itoa(i), auth.ScopeControl, "bench", "127.0.0.1:1"); err != nil {
			b.Fatal(err)
		}
	}
	d := StartDaemon(b, daemon.Config{Home: home, Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: b.TempDir()})}})
	if n := len(d.Auth().Store.List()); n != storedDevices {
		b.Fatalf("%d devices stored, want %d", n, storedDevices)
	}
	_, tokens, err := d.Auth().Store.Add("bench", auth.ScopeControl, "bench", "127.0.0.1:1")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ name, token string }{{"owner", d.Token()}, {"device", tokens.AccessToken}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				ws := benchDial(b, ctx, d.URL(), tc.token)
				ws.Close()
			}
		})
	}
}
