package contracttests

import (
	"context"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
)

// shutdownTimeout bounds the daemon's shutdown at the end of a test.
const shutdownTimeout = 30 * time.Second

// StartDaemon starts cdevd in process, listening on 127.0.0.1:0 with a
// temporary home unless cfg says otherwise, and shuts it down when the test
// ends.
func StartDaemon(t testing.TB, cfg daemon.Config) *daemon.Daemon {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	d, err := daemon.Start(cfg)
	if err != nil {
		t.Fatalf("start cdevd: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Errorf("cdevd shutdown: %v", err)
		}
	})
	return d
}
