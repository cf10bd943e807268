package contracttests

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// storedDevices is how many paired devices the upgrade benchmark's cdevd
// keeps besides the one it connects as.
const storedDevices = 1000

// BenchmarkUpgrade is a WebSocket upgrade (dial, authenticate, upgrade,
// close) with the owner's static token and one with a paired device's
// access token, on a cdevd that keeps storedDevices devices: a device token
// may cost at most 10% more (issue 25). ns/op is the pair of them.
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
	// The two kinds alternate in one loop, each timed on its own, so that
	// the machine's drift during the run (other load, sockets closing)
	// weighs on both alike; the ratio is the figure.
	var owner, device time.Duration
	for b.Loop() {
		start := time.Now()
		benchDial(b, ctx, d.URL(), d.Token()).Close()
		mid := time.Now()
		benchDial(b, ctx, d.URL(), tokens.AccessToken).Close()
		owner, device = owner+mid.Sub(start), device+time.Since(mid)
	}
	b.ReportMetric(float64(owner.Nanoseconds())/float64(b.N), "owner-ns/upgrade")
	b.ReportMetric(float64(device.Nanoseconds())/float64(b.N), "device-ns/upgrade")
	b.ReportMetric(float64(device)/float64(owner), "device/owner")
}
