// Command cdevd is the daemon that lets remote clients drive the agent CLIs
// installed on this machine over WebSocket + JSON-RPC 2.0.
//
//	cdevd serve [--addr 127.0.0.1:16180] [--workspace PATH]… [--demo] [flags]
//	cdevd token [--rotate]
//	cdevd doctor [--json]
//	cdevd service install|uninstall|status [-- serve flags]
//	cdevd bench [-quick] [-only FIGURE]
//	cdevd openrpc
//	cdevd version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/reach"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/gemini"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func main() {
	// The scripted runtime of `serve --bench-runtime` runs this binary as
	// its fake CLI.
	if scripted.IsCLI() {
		scripted.Main()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: cdevd <command> [flags]

commands:
  serve     run the daemon
  token     print the owner's token (full control; --rotate makes a new one)
  pair      pair a phone or another device: a QR code and a 6-digit code (--name, --scope, --json)
  devices   list, revoke, approve or reject paired devices
  doctor    show each runtime: found or not, path, version, status and why (--json)
  service   install, uninstall or show cdevd as a per-user service (systemd, launchd)
  bench     measure cdevd (a served process, over loopback) and print the performance table
  notify    test: send a test notification through every sink config.toml declares
  openrpc   print the OpenRPC document
  version   print cdevd's version
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(args[1:], stdout, stderr)
	case "token":
		err = token(args[1:], stdout, stderr)
	case "pair":
		err = pair(args[1:], stdout, stderr)
	case "devices":
		err = devices(args[1:], stdout, stderr)
	case "doctor":
		err = doctor(args[1:], stdout, stderr)
	case "service":
		err = service(args[1:], stdout, stderr)
	case "bench":
		err = benchCmd(args[1:], stdout, stderr)
	case "bench-echo": // not in usage: the baseline server `cdevd bench` starts
		err = benchEcho(args[1:], stdout)
	case "notify":
		err = notifyCmd(args[1:], stdout, stderr)
	case "openrpc":
		_, err = stdout.Write(openrpc.Document)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "cdevd", daemon.Version)
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "cdevd: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "cdevd:", err)
		return 1
	}
	return 0
}

// home is the state directory: $CDEVD_HOME, else ~/.config/cdevd.
func home() (string, error) {
	if h := os.Getenv("CDEVD_HOME"); h != "" {
		return h, nil
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory; set CDEVD_HOME: %w", err)
	}
	return filepath.Join(dir, ".config", "cdevd"), nil
}

// builtins are the runtimes this build of cdevd supports, in order of
// preference (the first is the default runtime).
var builtins = []string{claude.ID, codex.ID, gemini.ID}

// adapters is the built-in runtimes, then the ACP agents declared in the
// configuration file.
func adapters(log *zap.Logger, stall time.Duration, cfg config.Config, home string) []runtimes.Adapter {
	return adaptersIn(log, stall, cfg, home, nil)
}

// adaptersIn is adapters with each built-in CLI's whole environment given
// by runtime id (the demo's); a runtime not in envs gets cdevd's own.
func adaptersIn(log *zap.Logger, stall time.Duration, cfg config.Config, home string, envs map[string][]string) []runtimes.Adapter {
	addRepoCLIs() // before the adapters read PATH: serve and doctor alike
	as := []runtimes.Adapter{
		claude.New(claude.Config{Env: envs[claude.ID], StallTimeout: stall, Logger: log.Named("claude"),
			CacheDir: filepath.Join(home, "cache", "claude")}),
		codex.New(codex.Config{Env: envs[codex.ID], StallTimeout: stall, Logger: log.Named("codex"),
			CacheDir: filepath.Join(home, "cache", "codex")}),
		gemini.New(gemini.Config{Env: envs[gemini.ID], StallTimeout: stall, Logger: log.Named("gemini"),
			CacheDir: filepath.Join(home, "cache", "gemini")}),
	}
	for _, a := range cfg.ACPAgents {
		// A declared agent is Preview: cdevd has no test of it. It has no
		// history (cdevd cannot read its store) and resumes only if it
		// says it can load sessions.
		as = append(as, acp.New(acp.Spec{
			ID: a.ID, DisplayName: a.Name, Maturity: runtimes.Preview,
			Command: a.Command, Args: a.Args, Env: a.Environ(kit.Env()),
			CommandSource: cfg.Path, StallTimeout: stall, Logger: log.Named(a.ID),
		}))
	}
	return as
}

// builtinInfos are what the built-in runtimes declare, in registration
// order: what the service and the bench need to know of each comes from
// here, not from lists of their own.
func builtinInfos() []runtimes.Info {
	var infos []runtimes.Info
	for _, a := range adapters(zap.NewNop(), 0, config.Config{}, "") {
		infos = append(infos, a.Info())
	}
	return infos
}

// loadConfig reads $CDEVD_HOME/config.toml; a mistake in it stops cdevd.
func loadConfig(h string, log *zap.Logger) (config.Config, error) {
	cfg, err := config.Load(h, builtins...)
	if err != nil {
		return cfg, err
	}
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	for _, a := range cfg.ACPAgents {
		log.Info("declared ACP agent", zap.Object("agent", a))
	}
	return cfg, nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// serveOptions are serve's flags. `service install` parses the flags it
// passes through with the same set, so that a typo fails at install time
// rather than in a restart loop.
type serveOptions struct {
	addr, logFormat, logLevel            string
	tlsCert, tlsKey, publicURL           string
	allowRemote, noConsole, benchRuntime bool
	demo, pairingApproval                bool
	workspaces, origins, hosts, disabled multiFlag
	idle, stall                          time.Duration
	maxProcs                             int
}

func serveFlags(stderr io.Writer) (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", daemon.DefaultAddr, "listen address host:port (port 0 picks a free one)")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow listening on a non-loopback address")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "serve https and wss with this certificate (PEM; with --tls-key; reloaded when renewed)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	fs.StringVar(&o.publicURL, "public-url", "", "an https:// address of a TLS front for cdevd (tailscale serve, a proxy) to advertise and accept")
	fs.Var(&o.workspaces, "workspace", "add a workspace directory (repeatable)")
	fs.Var(&o.origins, "allow-origin", "allow WebSocket connections from this Origin (repeatable)")
	fs.Var(&o.hosts, "allow-host", "accept this Host header besides loopback names (repeatable)")
	fs.Var(&o.disabled, "disable-runtime", "turn a runtime off: ID or ID=reason (repeatable)")
	fs.StringVar(&o.logFormat, "log-format", "console", "log format: json or console")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.DurationVar(&o.idle, "idle-timeout", 30*time.Minute, "end an idle session's process after this long (it resumes on demand)")
	fs.DurationVar(&o.stall, "stall-timeout", 5*time.Minute, "fail a turn whose CLI prints nothing for this long")
	fs.BoolVar(&o.noConsole, "no-console", false, "do not serve the web console at /")
	fs.BoolVar(&o.pairingApproval, "pairing-approval", false, "a device pairing waits until you approve it (`cdevd devices approve`)")
	fs.BoolVar(&o.benchRuntime, "bench-runtime", false, "also register the scripted test runtime (for `cdevd bench`)")
	fs.IntVar(&o.maxProcs, "max-processes", 8, "live processes per runtime; the least recently used idle one is ended first")
	fs.BoolVar(&o.demo, "demo", false, "run the real CLIs against bundled fake models in a throwaway home (no account)")
	return fs, o
}

// checkedServe is serve's flags once checked, and what they were checked
// against.
type checkedServe struct {
	fs   *flag.FlagSet
	o    *serveOptions
	home string
	cfg  config.Config
	demo *demo // serve's, once started (--demo)
}

// checkServe parses serve's flags and makes every refusal serve makes
// before it listens: the flags themselves, the configuration file, and
// the daemon's own checks (daemon.Check). It writes and starts nothing.
// serve runs it first and `service install` on the flags it writes into
// the service, so that a flag serve refuses is refused at install, in the
// same words, rather than in the service's restart loop.
func checkServe(args []string, stderr io.Writer) (checkedServe, error) {
	fs, o := serveFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return checkedServe{}, err
	}
	if fs.NArg() > 0 {
		return checkedServe{}, fmt.Errorf("%q is not a flag: serve takes flags only (cdevd serve -h lists them)", fs.Arg(0))
	}
	if _, err := newLogger(o.logFormat, o.logLevel, io.Discard); err != nil {
		return checkedServe{}, err
	}
	c := checkedServe{fs: fs, o: o}
	if o.demo {
		// The demo's home is a throwaway one, made when it starts, with
		// no configuration file; it listens on loopback only.
		if o.allowRemote {
			return checkedServe{}, errDemoRemote
		}
	} else {
		var err error
		if c.home, err = home(); err != nil {
			return checkedServe{}, err
		}
		if c.cfg, err = loadConfig(c.home, zap.NewNop()); err != nil {
			return checkedServe{}, err
		}
	}
	as, err := c.adapters(zap.NewNop())
	if err != nil {
		return checkedServe{}, err
	}
	if err := daemon.Check(c.daemonConfig(as, nil)); err != nil {
		return checkedServe{}, err
	}
	return c, nil
}

// adapters are the runtimes the flags and the configuration file make
// (the demo's, once it has started).
func (c checkedServe) adapters(log *zap.Logger) ([]runtimes.Adapter, error) {
	as := adapters(log, c.o.stall, c.cfg, c.home)
	if c.demo != nil {
		as = c.demo.adapters(log, c.o.stall, c.home)
	}
	if c.o.benchRuntime {
		a, err := benchRuntime(c.home, log)
		if err != nil {
			return nil, err
		}
		as = append(as, a)
	}
	return as, nil
}

// daemonConfig is the daemon the flags describe, with these runtimes and
// this log.
func (c checkedServe) daemonConfig(as []runtimes.Adapter, log *zap.Logger) daemon.Config {
	o := c.o
	return daemon.Config{Home: c.home, Addr: o.addr, AllowRemote: o.allowRemote,
		Token: os.Getenv("CDEVD_TOKEN"), Workspaces: o.workspaces, AllowOrigins: o.origins, AllowHosts: o.hosts,
		Adapters: as, Disabled: reasons(o.disabled), IdleTimeout: o.idle, MaxProcesses: o.maxProcs,
		NoConsole: o.noConsole, TLSCert: o.tlsCert, TLSKey: o.tlsKey, PublicURL: o.publicURL,
		PairingApproval: o.pairingApproval, Logger: log,
		Notify: daemon.Notify{Sinks: notify.FromConfig(c.cfg.Notify), PermissionWait: c.cfg.Notify.PermissionWait,
			ConsoleURL: c.cfg.Notify.ConsoleURL}}
}

func serve(args []string, stdout, stderr io.Writer) error {
	c, err := checkServe(args, stderr)
	if err != nil {
		return err
	}
	o := c.o
	log, err := newLogger(o.logFormat, o.logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // stderr sync errors are not actionable
	if o.demo {
		if c.demo, err = startDemo(c.fs, o, stdout); err != nil {
			return err
		}
		defer c.demo.Close()
		c.home = c.demo.cdevdHome
	}
	h := c.home
	if c.cfg, err = loadConfig(h, log); err != nil { // again, for its warnings in the log
		return err
	}
	// Catch signals before anyone can learn the URL: a client that connects
	// and signals at once must still see an orderly shutdown.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	as, err := c.adapters(log)
	if err != nil {
		return err
	}
	d, err := daemon.Start(c.daemonConfig(as, log))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cdevd %s listening on %s\n", daemon.Version, d.URL())
	fmt.Fprintf(stdout, "token: from %s (print it with `cdevd token`; send it as \"Authorization: Bearer <token>\")\n", d.TokenSource())
	consoleURL, err := d.ConsolePairingURL()
	if err != nil {
		return err
	}
	printConsoleURL(stdout, consoleURL)
	printAdvertised(stdout, d.Advertised())
	if c.demo != nil && os.Getenv("CDEVD_TOKEN") == "" {
		fmt.Fprintf(stdout, "demo: the token is the demo's own: `CDEVD_HOME=%s cdevd token` prints it\n", h)
	}

	select {
	case <-ctx.Done():
	case err := <-d.Done():
		return err
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	return d.Shutdown(sctx)
}

// printConsoleURL prints the console's URL, which carries a one-time pairing
// token in its fragment (the console exchanges it and becomes a paired
// device; the owner's token is printed nowhere), only on a terminal. As a
// service, stdout is the journal or a log file, kept and readable long after:
// there the URL is printed without it. Never the log either.
func printConsoleURL(stdout io.Writer, u string) {
	if u == "" {
		return
	}
	if isTerminal(stdout) {
		fmt.Fprintf(stdout, "console: open %s\n", u)
		return
	}
	bare, _, _ := strings.Cut(u, "#")
	fmt.Fprintf(stdout, "console: open %s and paste the token `cdevd token` prints "+
		"(the one-time link that pairs it is printed only on a terminal)\n", bare)
}

// printAdvertised prints the URLs other machines may reach cdevd at (none
// when it listens on loopback), best first; docs/reach.md says which to use.
func printAdvertised(stdout io.Writer, urls []reach.URL) {
	for _, u := range urls {
		if u.Kind != reach.Loopback {
			fmt.Fprintf(stdout, "reach: %s (%s)\n", u.WS, u.Kind)
		}
	}
}

// reasons parses --disable-runtime values: ID or ID=reason.
func reasons(flags []string) map[string]string {
	m := map[string]string{}
	for _, f := range flags {
		id, reason, ok := strings.Cut(f, "=")
		if !ok || reason == "" {
			reason = "disabled by the daemon's configuration"
		}
		m[id] = reason
	}
	return m
}

func newLogger(format, level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	switch format {
	case "json":
		enc = zapcore.NewJSONEncoder(ec)
	case "console":
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(ec)
	default:
		return nil, fmt.Errorf("--log-format: %q is not json or console", format)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), lvl)), nil
}

func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rotate := fs.Bool("rotate", false, "replace the stored token with a new one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	h, err := home()
	if err != nil {
		return err
	}
	if err := daemon.PrepareHome(h); err != nil {
		return err
	}
	var t string
	if *rotate {
		if os.Getenv("CDEVD_TOKEN") != "" {
			fmt.Fprintln(stderr, "note: CDEVD_TOKEN is set and overrides the stored token")
		}
		t, err = daemon.RotateToken(h)
	} else {
		t, _, err = daemon.LoadToken(h, os.Getenv("CDEVD_TOKEN"))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, t)
	return nil
}
