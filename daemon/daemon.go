// Package daemon assembles cdevd from its parts (state directory, token,
// workspace store, registry, sessions engine, server, transport, HTTP
// listener) and takes it down in order. cmd/cdevd and the contract suite
// both start cdevd through it, so the suite tests what users run.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/console"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/server"
	"github.com/cdevd/cdevd/sessions"
	"github.com/cdevd/cdevd/transport"
	"github.com/cdevd/cdevd/workspaces"
)

// Version is cdevd's version.
const Version = "0.1.0"

// DefaultAddr is where cdevd listens unless told otherwise.
const DefaultAddr = "127.0.0.1:16180"

// Config is everything `cdevd serve` can be told.
type Config struct {
	Home         string   // state directory ($CDEVD_HOME)
	Addr         string   // host:port; port 0 picks a free one
	AllowRemote  bool     // permit a non-loopback bind
	Token        string   // "" → the stored token (created on first start)
	Workspaces   []string // added at start
	AllowOrigins []string
	AllowHosts   []string
	Adapters     []runtimes.Adapter
	// Disabled turns registered runtimes off: id → reason shown to clients.
	Disabled map[string]string
	// NoConsole turns the web console at / off (--no-console).
	NoConsole bool
	// PairingApproval makes each pairing wait for the host's approval
	// (--pairing-approval): `cdevd devices approve|reject`.
	PairingApproval bool

	IdleTimeout  time.Duration
	MaxProcesses int
	// Transport overrides tuning for tests (zero values keep the defaults).
	Transport transport.Config
	Sessions  sessions.Config

	Logger *zap.Logger
}

// Daemon is a running cdevd.
type Daemon struct {
	log       *zap.Logger
	ln        net.Listener
	transport *transport.Server
	auth      *auth.Service
	engine    *sessions.Engine
	reg       *registry.Registry
	served    chan error
	token     string
	tokenFrom string
	console   bool
}

// Start builds cdevd and starts listening.
func Start(cfg Config) (*Daemon, error) {
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if err := Check(cfg); err != nil {
		return nil, err
	}
	if err := PrepareHome(cfg.Home); err != nil {
		return nil, err
	}
	token, from, err := LoadToken(cfg.Home, cfg.Token)
	if err != nil {
		return nil, err
	}
	authn, err := auth.NewService(auth.Config{OwnerToken: token, DeviceFile: DeviceFile(cfg.Home),
		Approval: cfg.PairingApproval, Logger: log.Named("auth")})
	if err != nil {
		return nil, err
	}
	reg, err := registry.New(cfg.Adapters...)
	if err != nil {
		return nil, err
	}
	for id, reason := range cfg.Disabled {
		if _, ok := reg.Adapter(id); !ok {
			return nil, fmt.Errorf("--disable-runtime %s: no such runtime (have %v)", id, reg.IDs())
		}
		reg.Disable(id, reason)
	}
	store, err := workspaces.Open(filepath.Join(cfg.Home, "workspaces.json"))
	if err != nil {
		return nil, err
	}
	for _, p := range cfg.Workspaces {
		if !filepath.IsAbs(p) {
			if p, err = filepath.Abs(p); err != nil {
				return nil, err
			}
		}
		if _, err := store.Add(p, "", false); err != nil {
			return nil, fmt.Errorf("--workspace %s: %w", p, err)
		}
	}

	if host, _, _ := net.SplitHostPort(cfg.Addr); !transport.IsLoopbackHost(host) {
		log.Warn("listening on a non-loopback address: anyone who can reach it and has the token controls your agents",
			zap.String("addr", cfg.Addr))
	}

	sc := cfg.Sessions
	sc.Registry, sc.Workspaces, sc.Logger = reg, store, log.Named("sessions")
	sc.TrashDir = filepath.Join(cfg.Home, "trash")
	if cfg.IdleTimeout != 0 {
		sc.IdleTimeout = cfg.IdleTimeout
	}
	if cfg.MaxProcesses != 0 {
		sc.MaxProcesses = cfg.MaxProcesses
	}
	engine := sessions.New(sc)

	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "cdevd",
		Name: "sessions_running", Help: "Sessions whose runtime process is alive."},
		func() float64 { return float64(engine.Running()) }))

	srv := server.New(server.Config{Version: Version, Registry: reg, Workspaces: store, Engine: engine, Auth: authn,
		Discover: openrpc.Document, Logger: log.Named("rpc")})
	tc := cfg.Transport
	tc.Token, tc.AllowOrigins, tc.AllowHosts = token, cfg.AllowOrigins, cfg.AllowHosts
	tc.Auth, tc.API = authn.Authenticator(), authn.Handler()
	tc.Registry, tc.Logger = metrics, log.Named("transport")
	if !cfg.NoConsole {
		tc.Console = console.Handler()
	}
	ts := transport.New(tc, srv)
	// A revoked device is shut out at once, not at its next connection.
	authn.Store.OnRevoke(func(id string) { ts.CloseDevice(id) })

	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--addr %s is in use: another cdevd may be running there (`cdevd service status` shows "+
			"the service's); stop it, or listen elsewhere (--addr 127.0.0.1:0 picks a free port): %w", cfg.Addr, err)
	}
	if err != nil {
		return nil, err
	}
	d := &Daemon{log: log, ln: ln, transport: ts, auth: authn, engine: engine, reg: reg, served: make(chan error, 1),
		token: token, tokenFrom: from, console: !cfg.NoConsole}
	// The CLIs' --version runs now, not on a client's first request.
	reg.Warm()
	go func() { d.served <- ts.Serve(ln) }()
	return d, nil
}

// URL is the WebSocket URL clients connect to.
func (d *Daemon) URL() string { return "ws://" + d.ln.Addr().String() + "/ws" }

// ConsoleURL is the web console's address with the token in its fragment,
// which browsers never send to a server (so no log holds it); "" with
// NoConsole.
func (d *Daemon) ConsoleURL() string {
	if !d.console {
		return ""
	}
	return "http://" + d.ln.Addr().String() + "/#token=" + url.QueryEscape(d.token)
}

// Auth is cdevd's authentication: the paired devices and the pairings in
// progress.
func (d *Daemon) Auth() *auth.Service { return d.auth }

// ConsolePairingURL is the web console's address with a new one-time
// pairing token in its fragment (which browsers never send): the console
// exchanges it and becomes a paired device called "console", so that the
// long-lived token is printed nowhere. "" with NoConsole.
func (d *Daemon) ConsolePairingURL() (string, error) {
	if !d.console {
		return "", nil
	}
	t, err := d.auth.Pair("console", auth.ScopeControl)
	if err != nil {
		return "", err
	}
	return "http://" + d.ln.Addr().String() + "/#pair=" + url.QueryEscape(t.PairingToken), nil
}

// Addr is the listening address.
func (d *Daemon) Addr() string { return d.ln.Addr().String() }

// Token is the token clients must present.
func (d *Daemon) Token() string { return d.token }

// TokenSource says where the token came from, for the startup line.
func (d *Daemon) TokenSource() string { return d.tokenFrom }

// Done yields the listener's error if it stops by itself.
func (d *Daemon) Done() <-chan error { return d.served }

// Shutdown stops accepting, ends every session's process group, closes
// every socket with a close frame, and returns when all of it is done.
func (d *Daemon) Shutdown(ctx context.Context) error {
	// Refuse new upgrades, close live sockets (1001) and stop listening
	// first, so that clients hear about the shutdown before their
	// sessions' events stop.
	err := d.transport.Shutdown(ctx)
	d.engine.Close(ctx)
	d.reg.Close()
	return errors.Join(err, d.auth.Close())
}
