package daemon

import (
	"fmt"
	"net"
	"path/filepath"

	"github.com/cdevd/cdevd/transport"
	"github.com/cdevd/cdevd/workspaces"
)

// Check makes every refusal of cfg that Start would make before it
// listens, without writing or listening: the address (a non-loopback one
// needs AllowRemote), the allowed origins, TLS and the public URL, the workspaces (each an
// existing directory) and the runtimes to disable (each registered).
// Start runs it first; `cdevd service install` runs it on the flags it
// writes into the service, so that both refuse the same flags with the
// same words.
func Check(cfg Config) error {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if !transport.IsLoopbackHost(host) && !cfg.AllowRemote {
		return fmt.Errorf("--addr %s is not a loopback address; pass --allow-remote to listen on it", cfg.Addr)
	}
	if err := checkOrigins(cfg.AllowOrigins); err != nil {
		return err
	}
	if err := checkReach(cfg); err != nil {
		return err
	}
	for _, p := range cfg.Workspaces {
		if p, err = filepath.Abs(p); err != nil {
			return err
		}
		if err := workspaces.CheckDir(p); err != nil {
			return fmt.Errorf("--workspace %s: %w", p, err)
		}
	}
	var ids []string
	for _, a := range cfg.Adapters {
		ids = append(ids, a.Info().ID)
	}
	for id := range cfg.Disabled {
		known := false
		for _, have := range ids {
			known = known || have == id
		}
		if !known {
			return fmt.Errorf("--disable-runtime %s: no such runtime (have %v)", id, ids)
		}
	}
	return nil
}
