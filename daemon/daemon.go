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
	"slices"
	"syscall"
	"time"

	"github.com/cdevd/cdevd/attachments"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/console"
	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/presence"
	"github.com/cdevd/cdevd/reach"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/server"
	"github.com/cdevd/cdevd/sessions"
	"github.com/cdevd/cdevd/transport"
	"github.com/cdevd/cdevd/usage"
	"github.com/cdevd/cdevd/workspaces"
	"github.com/cdevd/cdevd/workspaces/discover"
	"github.com/cdevd/cdevd/workspaces/search"
	"github.com/cdevd/cdevd/workspaces/turns"
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
	// TLSCert and TLSKey (PEM files, both or neither) make cdevd serve
	// https and wss; a renewed pair is picked up without a restart.
	TLSCert, TLSKey string
	// PublicURL is an https:// address of a TLS front for cdevd (`tailscale
	// serve`, a reverse proxy) or of cdevd itself with a trusted
	// certificate: advertised first, and its host passes the Host check.
	PublicURL string
	// Notify says where notifications go (config.toml's [notify]).
	Notify Notify
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

// Notify configures notifications: the sinks, and the settings of
// notify.Config a user can change.
type Notify struct {
	Sinks []notify.Sink
	// PermissionWait: zero takes notify's default.
	PermissionWait time.Duration
	// ConsoleURL is the console's address in links; empty: where cdevd
	// listens.
	ConsoleURL string
	// Presence tells who is looking at a session; nil: a connection that
	// watches it (sessions.Engine.Watched).
	Presence notify.Presence
}

// Daemon is a running cdevd.
type Daemon struct {
	log         *zap.Logger
	ln          net.Listener
	tls         bool
	public      *url.URL
	transport   *transport.Server
	auth        *auth.Service
	engine      *sessions.Engine
	notifier    *notify.Notifier
	attachments *attachments.Store
	search      *search.Service
	discover    *discover.Finder
	reg         *registry.Registry
	served      chan error
	token       string
	tokenFrom   string
	console     bool
	limits      *usage.Limits
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
	// What the CLIs offer is read back from the last run while they are
	// unchanged: a restarted daemon answers its first initialize at once.
	reg.KeepOffers(filepath.Join(cfg.Home, "offers"))
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
	tlsConfig, public, err := reachSettings(cfg, log)
	if err != nil {
		return nil, err
	}
	if w := reach.PlainWarning(cfg.Addr, tlsConfig != nil); w != "" {
		log.Warn(w)
	}
	serverID, err := LoadServerID(cfg.Home)
	if err != nil {
		return nil, err
	}

	sc := cfg.Sessions
	sc.Registry, sc.Workspaces, sc.Logger = reg, store, log.Named("sessions")
	sc.TrashDir = filepath.Join(cfg.Home, "trash")
	sc.QueueDir = filepath.Join(cfg.Home, "queues")
	if sc.Turns == nil {
		// Turn snapshots' objects and records: cdevd's own, never the
		// user's repository (workspaces/turns). The tree watch on the
		// daemon's one inotify instance lets a turn's start reuse the last
		// snapshot while nothing changed.
		sc.Turns = turns.New(turns.Config{Home: filepath.Join(cfg.Home, "turns"), Watcher: fswatch.Or(sc.Watcher)})
		sc.TurnStore = turns.NewStore(filepath.Join(cfg.Home, "turns", "sessions"))
	}
	if cfg.IdleTimeout != 0 {
		sc.IdleTimeout = cfg.IdleTimeout
	}
	if cfg.MaxProcesses != 0 {
		sc.MaxProcesses = cfg.MaxProcesses
	}
	metrics := prometheus.NewRegistry()
	// The notifier asks the engine who watches, and the engine tells the
	// notifier its events: the engine is set before any session starts.
	var engine *sessions.Engine
	var listening net.Addr
	consoleURL := cfg.Notify.ConsoleURL
	// Web Push is always a sink: it sends to the browsers that subscribed
	// (none at first).
	vapid, err := notify.LoadVAPID(cfg.Home)
	if err != nil {
		return nil, err
	}
	subs, err := notify.OpenSubscriptions(cfg.Home)
	if err != nil {
		return nil, err
	}
	sinks := append(slices.Clone(cfg.Notify.Sinks), notify.NewWebPush(subs, vapid, "", log.Named("notify")))
	viewers := presence.New()
	present := cfg.Notify.Presence
	if present == nil {
		present = notify.PresenceFunc(func(id string) bool { return looking(viewers, engine, id) })
	}
	notifier := notify.New(notify.Config{Sinks: sinks, PermissionWait: cfg.Notify.PermissionWait,
		Presence: present,
		Workspace: func(id string) string {
			if w, err := store.Get(id); err == nil {
				return w.Name
			}
			return ""
		},
		ConsoleURL: func() string {
			switch {
			case consoleURL != "" || cfg.NoConsole:
				return consoleURL
			case public != nil:
				return "https://" + public.Host + "/"
			case tlsConfig != nil:
				return "https://" + listening.String() + "/"
			}
			return "http://" + listening.String() + "/"
		},
		Metrics: metrics, StatusFile: filepath.Join(cfg.Home, notify.StatusFileName), Logger: log.Named("notify")})
	sc.Observer = notifier
	// Images and files clients send with prompts: private, under the
	// state directory, removed when they expire; every agent may read
	// them (prompts name their paths).
	atts, err := attachments.Open(attachments.Config{Dir: filepath.Join(cfg.Home, "attachments"),
		Logger: log.Named("attachments")})
	if err != nil {
		notifier.Close()
		return nil, err
	}
	sc.ReadDirs = append(slices.Clip(sc.ReadDirs), atts.Dir())
	// The runtimes' rate limits, kept across restarts: a CLI says them only
	// with a model call.
	limits := usage.OpenLimits(filepath.Join(cfg.Home, "usage", "limits.json"), log.Named("usage"))
	sc.Limits = limits
	engine = sessions.New(sc)

	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "cdevd",
		Name: "sessions_running", Help: "Sessions whose runtime process is alive."},
		func() float64 { return float64(engine.Running()) }))

	// Search shares the engine's inotify instance: one per daemon.
	repos := discover.New("")
	finder := search.New(search.Config{Watcher: sc.Watcher, Logger: log.Named("search")})
	srv := server.New(server.Config{Version: Version, Attachments: atts, ServerID: serverID, Hostname: hostname(), Registry: reg,
		Workspaces: store, Engine: engine, Search: finder, Presence: viewers, Finder: repos, Auth: authn,
		Discover: openrpc.Document, Logger: log.Named("rpc"),
		Notify: &notify.Service{Notifier: notifier, Subs: subs, Keys: vapid}, Limits: limits})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		notifier.Close()
		atts.Close()
		limits.Close()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--addr %s is in use: another cdevd may be running there (`cdevd service status` shows "+
			"the service's); stop it, or listen elsewhere (--addr 127.0.0.1:0 picks a free port): %w", cfg.Addr, err)
	}
	if err != nil {
		return nil, err
	}
	tc := cfg.Transport
	tc.Token, tc.AllowOrigins, tc.AllowHosts = token, cfg.AllowOrigins, cfg.AllowHosts
	tc.TLS = tlsConfig
	tc.Auth, tc.API = authn.Authenticator(), apiHandler(authn, atts, store)
	// The Host check takes the names and addresses advertised now; an
	// address the machine gains later passes as the one a request came
	// in on (see transport's hostAllowed).
	tc.AllowHosts = append(slices.Clip(tc.AllowHosts), advertisedHosts(ln.Addr().String(), public, log)...)
	if public != nil {
		// The console served through the front has its origin.
		tc.AllowOrigins = append(slices.Clip(tc.AllowOrigins), "https://"+public.Host)
	}
	tc.Registry, tc.Logger = metrics, log.Named("transport")
	if !cfg.NoConsole {
		tc.Console = console.Handler()
	}
	ts := transport.New(tc, srv)
	// A revoked device is shut out at once, not at its next connection.
	authn.Store.OnRevoke(func(id string) {
		ts.CloseDevice(id)
		// Nor does its browser hear from cdevd again.
		if n, err := subs.RemoveOwner(id); err != nil || n > 0 {
			log.Info("revoked device's push subscriptions removed", zap.String("device", id), zap.Int("count", n), zap.Error(err))
		}
	})
	listening = ln.Addr()
	d := &Daemon{log: log, ln: ln, tls: tlsConfig != nil, public: public, transport: ts, auth: authn, engine: engine,
		notifier: notifier, attachments: atts, limits: limits, search: finder, discover: repos, reg: reg, served: make(chan error, 1), token: token, tokenFrom: from, console: !cfg.NoConsole}

	// A QR code made in the console carries an address a phone can reach,
	// not the loopback one the console may be opened at.
	authn.SetAdvertised(func() []auth.Addresses {
		var out []auth.Addresses
		for _, u := range d.Advertised() {
			out = append(out, auth.Addresses{WS: u.WS, HTTP: u.HTTP})
		}
		return out
	})

	// The CLIs' --version runs now, not on a client's first request.
	reg.Warm()
	go func() { d.served <- ts.Serve(ln) }()
	return d, nil
}

// looking tells the notifier whether someone is looking at session id: a
// client that says where it looks (client/session/focus: the iOS app, the
// console) counts while it views the session with its page in front; one
// that never says (an IDE, a script) counts while it watches the session.
func looking(viewers *presence.Tracker, engine *sessions.Engine, id string) bool {
	return viewers.Present(id) || engine.Watched(id, func(client string) bool { return !viewers.Reports(client) })
}

// URL is the WebSocket URL clients connect to on the listening address.
func (d *Daemon) URL() string { return d.scheme("ws") + "://" + d.ln.Addr().String() + "/ws" }

// scheme is ws or http, with an s over TLS.
func (d *Daemon) scheme(plain string) string {
	if d.tls {
		return plain + "s"
	}
	return plain
}

// Advertised is every URL a client may reach this cdevd at, best first
// (the public URL, tailnet, LAN; see reach.Advertised), from the
// machine's addresses now. `cdevd pair` puts them in its QR code.
func (d *Daemon) Advertised() []reach.URL {
	local, err := reach.LocalAddrs()
	if err != nil {
		// Some interfaces could not be read: advertise the others.
		d.log.Debug("reading the machine's addresses", zap.Error(err))
	}
	return reach.Advertised(reach.Listen{Addr: d.ln.Addr().String(), TLS: d.tls, Public: d.public}, local)
}

// ConsoleURL is the web console's address with the token in its fragment,
// which browsers never send to a server (so no log holds it); "" with
// NoConsole.
func (d *Daemon) ConsoleURL() string {
	if !d.console {
		return ""
	}
	return d.scheme("http") + "://" + d.ln.Addr().String() + "/#token=" + url.QueryEscape(d.token)
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
	// The link is printed to whoever started serve, the one who would
	// approve it: under --pairing-approval it is approved already, or the
	// console could never pair (its approval screen is behind the pairing).
	if t.ApprovalRequired {
		if err := d.auth.Approve(t.RequestID); err != nil {
			return "", err
		}
	}
	return d.scheme("http") + "://" + d.ln.Addr().String() + "/#pair=" + url.QueryEscape(t.PairingToken), nil
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
	d.notifier.Close()
	d.attachments.Close()
	d.limits.Close()
	d.search.Close()
	d.discover.Close()
	d.reg.Close()
	return errors.Join(err, d.auth.Close())
}
