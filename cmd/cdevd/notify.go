package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/notify"
)

// notifyCmd is `cdevd notify test`: a test notification through every sink
// of config.toml, sent from this process (cdevd need not be running), and
// how each went. It fails if any sink failed, so a script can check.
func notifyCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "test" {
		return errors.New("usage: cdevd notify test [--timeout 10s]")
	}
	fs := flag.NewFlagSet("notify test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", 15*time.Second, "how long to wait for every sink")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	h, err := home()
	if err != nil {
		return err
	}
	cfg, err := loadConfig(h, zap.NewNop())
	if err != nil {
		return err
	}
	sinks := notify.FromConfig(cfg.Notify)
	// The browsers that subscribed, if serve has made its VAPID keys (this
	// command never makes them: they belong to the serving cdevd).
	if _, err := os.Stat(filepath.Join(h, notify.VAPIDFileName)); err == nil {
		keys, err := notify.LoadVAPID(h)
		if err != nil {
			return err
		}
		subs, err := notify.OpenSubscriptions(h)
		if err != nil {
			return err
		}
		if len(subs.List()) > 0 {
			sinks = append(sinks, notify.NewWebPush(subs, keys, "", nil))
		}
	}
	if len(sinks) == 0 {
		return fmt.Errorf("%s declares no notification sink: see docs/notifications.md", cfg.Path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	failed := 0
	for _, r := range notify.Test(ctx, sinks, cfg.Notify.ConsoleURL) {
		if r.OK {
			fmt.Fprintf(stdout, "%-20s %-8s ok (%d ms)\n", r.Sink, r.Type, r.Millis)
			continue
		}
		failed++
		fmt.Fprintf(stdout, "%-20s %-8s FAILED: %s\n", r.Sink, r.Type, r.Error)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d sinks failed", failed, len(sinks))
	}
	return nil
}
