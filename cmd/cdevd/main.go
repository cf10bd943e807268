// Command cdevd is the daemon that lets remote clients drive the agent CLIs
// installed on this machine over WebSocket + JSON-RPC 2.0.
//
//	cdevd serve [--addr 127.0.0.1:16180] [--workspace PATH]… [flags]
//	cdevd token [--rotate]
//	cdevd doctor
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
	"text/tabwriter"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/gemini"
	"github.com/cdevd/cdevd/runtimes/kit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: cdevd <command> [flags]

commands:
  serve     run the daemon
  token     print the token clients must present (--rotate makes a new one)
  doctor    show each runtime: found or not, path, version, status and why
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
	case "doctor":
		err = doctor(args[1:], stdout, stderr)
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
	as := []runtimes.Adapter{
		claude.New(claude.Config{Bin: os.Getenv("CLAUDE_BIN"), StallTimeout: stall, Logger: log.Named("claude"),
			CacheDir: filepath.Join(home, "cache", "claude")}),
		codex.New(codex.Config{StallTimeout: stall, Logger: log.Named("codex")}),
		gemini.New(gemini.Config{StallTimeout: stall, Logger: log.Named("gemini")}),
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

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", daemon.DefaultAddr, "listen address host:port (port 0 picks a free one)")
	allowRemote := fs.Bool("allow-remote", false, "allow listening on a non-loopback address")
	var wss, origins, hosts, disabled multiFlag
	fs.Var(&wss, "workspace", "add a workspace directory (repeatable)")
	fs.Var(&origins, "allow-origin", "allow WebSocket connections from this Origin (repeatable)")
	fs.Var(&hosts, "allow-host", "accept this Host header besides loopback names (repeatable)")
	fs.Var(&disabled, "disable-runtime", "turn a runtime off: ID or ID=reason (repeatable)")
	logFormat := fs.String("log-format", "console", "log format: json or console")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	idle := fs.Duration("idle-timeout", 30*time.Minute, "end an idle session's process after this long (it resumes on demand)")
	stall := fs.Duration("stall-timeout", 5*time.Minute, "fail a turn whose CLI prints nothing for this long")
	maxProcs := fs.Int("max-processes", 8, "live processes per runtime; the least recently used idle one is ended first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := newLogger(*logFormat, *logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // stderr sync errors are not actionable
	h, err := home()
	if err != nil {
		return err
	}
	cfg, err := loadConfig(h, log)
	if err != nil {
		return err
	}
	// Catch signals before anyone can learn the URL: a client that connects
	// and signals at once must still see an orderly shutdown.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	d, err := daemon.Start(daemon.Config{Home: h, Addr: *addr, AllowRemote: *allowRemote,
		Token: os.Getenv("CDEVD_TOKEN"), Workspaces: wss, AllowOrigins: origins, AllowHosts: hosts,
		Adapters: adapters(log, *stall, cfg, h), Disabled: reasons(disabled), IdleTimeout: *idle, MaxProcesses: *maxProcs,
		Logger: log})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cdevd %s listening on %s\n", daemon.Version, d.URL())
	fmt.Fprintf(stdout, "token: from %s (print it with `cdevd token`; send it as \"Authorization: Bearer <token>\")\n", d.TokenSource())

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

func doctor(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	h, err := home()
	if err != nil {
		return err
	}
	cfg, err := config.Load(h, builtins...)
	if err != nil {
		return err
	}
	reg, err := registry.New(adapters(zap.NewNop(), 0, cfg, h)...)
	if err != nil {
		return err
	}
	defer reg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUNTIME\tFOUND\tPATH\tVERSION\tSTATUS\tWHY")
	for _, id := range reg.IDs() {
		st := reg.Status(ctx, id)
		a := st.Availability
		why := st.Reason
		if why == "" {
			why = "-"
		}
		fmt.Fprintf(tw, "%s\t%t\t%s\t%s\t%s\t%s\n", id, a.Installed, orDash(a.Path), orDash(a.Version), st.Status, why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nstate directory: %s\nconfiguration: %s\n", h, cfg.Path)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
