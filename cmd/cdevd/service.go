package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cdevd/cdevd/runtimes/proc"
)

// `cdevd service install|uninstall|status`: cdevd as a per-user service, a
// systemd user unit on Linux and a launchd agent on macOS. install writes
// one file and asks the service manager to enable and start it; uninstall
// undoes exactly that; status reads both back. Each is idempotent.

const serviceUsage = `usage: cdevd service install [-- SERVE FLAGS...]
       cdevd service uninstall
       cdevd service status

install writes a per-user service that runs "cdevd serve" with the flags
given after "--" (e.g. -- --workspace ~/code/app), starts it, and starts it
again at every login and after a crash. Its environment is this shell's
PATH and HOME (and %s when set),
never CDEVD_TOKEN: the service reads the stored token.
Relative paths in them are made absolute from the current directory, and
relative PATH entries are left out.
`

// serviceMarker is in every file install writes; uninstall removes, and
// install replaces, only a file that carries it.
const serviceMarker = "Written by `cdevd service install`"

// serviceHelp is serviceUsage with the variables the service carries.
func serviceHelp() string {
	return fmt.Sprintf(serviceUsage, strings.Join(serviceEnvVars(), ", "))
}

// serviceEnvVars are passed from the installing shell to the service when
// set: where cdevd keeps its state, and the variables each built-in
// runtime declares (where its CLI is, where the CLI keeps its own state).
// PATH and HOME always are. CDEVD_TOKEN never is (a unit file is not a
// secret store).
func serviceEnvVars() []string {
	vars := []string{"CDEVD_HOME"}
	for _, info := range builtinInfos() {
		vars = append(vars, info.CLI.Vars()...)
	}
	return vars
}

// executable is cdevd's own path; tests replace it.
var executable = os.Executable

// serviceSpec is what a service file says, whatever the platform.
type serviceSpec struct {
	Exe  string   // absolute path of cdevd
	Args []string // "serve" and its flags
	Env  []envVar // in a fixed order, so that the file is stable
	Home string   // the user's home directory
}

type envVar struct{ Name, Value string }

// serviceManager is one platform's kind of per-user service.
type serviceManager interface {
	kind() string
	// file is where install writes.
	file() string
	render(serviceSpec) ([]byte, error)
	// prepare makes what the service needs besides its file (log dirs).
	prepare() error
	// activate enables and starts the service; changed says the file is
	// new or different, so that a running service must pick it up.
	activate(sh *shell, changed bool) error
	// deactivate stops and disables it; the file is still there.
	deactivate(sh *shell) error
	// removed tells the manager the file is gone.
	removed(sh *shell)
	// state reports enabled and running, and how the manager said so.
	state(sh *shell) (enabled, running string)
	logs() string
}

func service(args []string, stdout, stderr io.Writer) error {
	return serviceOn(runtime.GOOS, args, stdout, stderr)
}

// serviceOn runs a service command as on goos: tests drive both platforms.
func serviceOn(goos string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, serviceHelp())
		return errors.New("service: install, uninstall or status?")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	var m serviceManager
	switch goos {
	case "linux":
		m = systemdUser{home: home, config: os.Getenv("XDG_CONFIG_HOME")}
	case "darwin":
		m = launchAgent{home: home, uid: os.Getuid()}
	default:
		return fmt.Errorf("service: no per-user service manager is supported on %s; run `cdevd serve` under your own", goos)
	}
	fs := flag.NewFlagSet("service "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, serviceHelp()) }
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	sh := &shell{out: stdout}
	switch args[0] {
	case "install":
		return serviceInstall(m, sh, home, fs.Args(), stdout, stderr)
	case "uninstall":
		if fs.NArg() > 0 {
			return fmt.Errorf("service uninstall takes no arguments")
		}
		return serviceUninstall(m, sh, stdout)
	case "status":
		if fs.NArg() > 0 {
			return fmt.Errorf("service status takes no arguments")
		}
		return serviceStatus(m, sh, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, serviceHelp())
		return nil
	default:
		fmt.Fprint(stderr, serviceHelp())
		return fmt.Errorf("service: unknown command %q", args[0])
	}
}

func serviceInstall(m serviceManager, sh *shell, home string, serveArgs []string, stdout, stderr io.Writer) error {
	spec, err := newServiceSpec(home, serveArgs, stderr)
	if err != nil {
		return err
	}
	data, err := m.render(spec)
	if err != nil {
		return err
	}
	path := m.file()
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case !bytes.Contains(old, []byte(serviceMarker)):
		return fmt.Errorf("%s exists and was not written by `cdevd service install`: move it aside first", path)
	}
	changed := !bytes.Equal(old, data)
	if changed {
		if err := writeFileAtomic(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	} else {
		fmt.Fprintf(stdout, "%s is up to date\n", path)
	}
	if err := m.prepare(); err != nil {
		return err
	}
	if err := m.activate(sh, changed); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "logs: %s\n", m.logs())
	return nil
}

func serviceUninstall(m serviceManager, sh *shell, stdout io.Writer) error {
	path := m.file()
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stdout, "not installed (no %s)\n", path)
		return nil
	case err != nil:
		return err
	case !bytes.Contains(old, []byte(serviceMarker)):
		return fmt.Errorf("%s was not written by `cdevd service install`; leaving it alone", path)
	}
	// Stop before removing the file: the manager needs it to know what to
	// stop. A manager that cannot be reached has nothing running to stop.
	if err := m.deactivate(sh); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "removed %s\n", path)
	m.removed(sh)
	return nil
}

func serviceStatus(m serviceManager, sh *shell, stdout io.Writer) error {
	path := m.file()
	installed := "no"
	if data, err := os.ReadFile(path); err == nil {
		installed = "yes"
		if !bytes.Contains(data, []byte(serviceMarker)) {
			installed = "a file not written by `cdevd service install` is there"
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	enabled, running := m.state(sh)
	fmt.Fprintf(stdout, "service:   %s\nfile:      %s\ninstalled: %s\nenabled:   %s\nrunning:   %s\nlogs:      %s\n",
		m.kind(), path, installed, enabled, running, m.logs())
	return nil
}

// newServiceSpec is the service for the running cdevd and this shell.
func newServiceSpec(home string, serveArgs []string, stderr io.Writer) (serviceSpec, error) {
	exe, err := executable()
	if err != nil {
		return serviceSpec{}, fmt.Errorf("cannot tell where cdevd is: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return serviceSpec{}, err
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(stderr, "warning: %s is a temporary build (go run); install a built cdevd (go install ./cmd/cdevd) and run its service install\n", exe)
	}
	args, err := serviceArgs(serveArgs)
	if err != nil {
		return serviceSpec{}, err
	}
	// A relative PATH entry would be looked up from the directory each
	// CLI runs in, a workspace: cdevd gives the CLIs none (proc.AbsolutePATH),
	// so the service file does not say any either.
	dirs, dropped := proc.AbsoluteDirs(os.Getenv("PATH"))
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "note: PATH entries that are not absolute directories are left out of the service: %q\n", dropped)
	}
	if len(dirs) == 0 {
		return serviceSpec{}, errors.New("PATH has no absolute directory: the service would not find the CLIs")
	}
	env := []envVar{{"PATH", strings.Join(dirs, string(filepath.ListSeparator))}, {"HOME", home}}
	found := serviceCLIs(dirs, dropped, stderr)
	for _, k := range serviceEnvVars() {
		v := os.Getenv(k)
		if v == "" {
			v = found[k]
		}
		if v == "" {
			continue
		}
		// The service does not start where this shell is: a relative path
		// is made absolute from here, as serve does from where it starts.
		// A bare *_BIN name (claude) stays one, looked up on PATH.
		if strings.HasSuffix(k, "_HOME") || strings.ContainsRune(v, filepath.Separator) {
			abs, err := filepath.Abs(v)
			if err != nil {
				return serviceSpec{}, err
			}
			if abs != v {
				fmt.Fprintf(stderr, "note: %s=%s is written as %s\n", k, v, abs)
			}
			v = abs
		}
		env = append(env, envVar{k, v})
	}
	if os.Getenv("CDEVD_TOKEN") != "" {
		fmt.Fprintln(stderr, "note: CDEVD_TOKEN is not passed to the service; it uses the token stored in its state directory (`cdevd token`)")
	}
	for _, e := range env {
		if strings.ContainsAny(e.Value, "\x00\n\r") {
			return serviceSpec{}, fmt.Errorf("%s holds a line break, which a service file cannot carry", e.Name)
		}
	}
	return serviceSpec{Exe: exe, Args: args, Env: env, Home: home}, nil
}

// serviceCLIs finds each built-in runtime's CLI as the service will,
// and says when the service would not find it. A CLI found here only
// through a relative PATH entry the service leaves out (node_modules/.bin,
// as `make serve` and `npm ci` have it) or in ./node_modules/.bin is
// returned as its *_BIN, made absolute; a CLI the service finds neither on
// its PATH nor at its *_BIN gets a warning: that runtime would be
// unavailable under the service. So would one whose script names an
// interpreter (#!/usr/bin/env node) that is not on the service's PATH.
func serviceCLIs(dirs, dropped []string, stderr io.Writer) map[string]string {
	found := map[string]string{}
	for _, info := range builtinInfos() {
		cli := info.CLI
		if cli.Command == "" || cli.BinEnv == "" {
			continue
		}
		bin, where := os.Getenv(cli.BinEnv), ""
		switch {
		case strings.ContainsRune(bin, filepath.Separator):
			abs, _ := filepath.Abs(bin)
			if executableFile(abs) {
				where = abs
			} else {
				fmt.Fprintf(stderr, "warning: %s=%s is not an executable file: the %s runtime will be unavailable under the service; "+
					"fix %s and run install again\n", cli.BinEnv, bin, info.ID, cli.BinEnv)
				continue
			}
		case bin != "":
			if where = lookIn(bin, dirs); where == "" {
				fmt.Fprintf(stderr, "warning: %s=%s is not on the service's PATH: the %s runtime will be unavailable under the service; "+
					"set %s to its absolute path and run install again\n", cli.BinEnv, bin, info.ID, cli.BinEnv)
				continue
			}
		default:
			if where = lookIn(cli.Command, dirs); where != "" {
				break
			}
			here := lookIn(cli.Command, append(slices.Clone(dropped), filepath.Join("node_modules", ".bin")))
			if here == "" {
				fmt.Fprintf(stderr, "warning: %s is not on PATH and %s is not set: the %s runtime will be unavailable under the service; "+
					"if you use it, put %s on PATH or set %s=/path/to/%s, and run install again\n",
					cli.Command, cli.BinEnv, info.ID, cli.Command, cli.BinEnv, cli.Command)
				continue
			}
			abs, err := filepath.Abs(here)
			if err != nil {
				continue
			}
			found[cli.BinEnv], where = abs, abs
			fmt.Fprintf(stderr, "note: %s is found here only at %s, which is not on the service's PATH: the service gets %s=%s\n",
				cli.Command, here, cli.BinEnv, abs)
		}
		if interp := scriptInterpreter(where); interp != "" && lookIn(interp, dirs) == "" {
			fmt.Fprintf(stderr, "warning: %s runs with %s, which is not on the service's PATH: the %s runtime will be unavailable "+
				"under the service; put %s's directory on PATH and run install again\n", where, interp, info.ID, interp)
		}
	}
	return found
}

// lookIn is the first executable file name in dirs ("" is the current
// directory), or "".
func lookIn(name string, dirs []string) string {
	for _, d := range dirs {
		if d == "" {
			d = "."
		}
		if p := filepath.Join(d, name); executableFile(p) {
			return p
		}
	}
	return ""
}

func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// scriptInterpreter is the program a "#!/usr/bin/env NAME" script is run
// with, looked up on PATH (node, for the npm CLIs); "" for anything else.
func scriptInterpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!/usr/bin/env ")
	if !ok {
		return ""
	}
	for _, w := range strings.Fields(rest) {
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return w
		}
	}
	return ""
}

// serviceArgs checks the flags for serve as serve itself does
// (checkServe: the flags, the configuration file, the daemon's checks),
// and writes them back as --name=value (unambiguous in any order), with
// workspace and certificate paths made absolute: the service does not run
// in this directory. A refusal is serve's, in serve's words.
func serviceArgs(flags []string) ([]string, error) {
	c, err := checkServe(flags, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("serve flags after --: %w", err)
	}
	out := []string{"serve"}
	c.fs.Visit(func(f *flag.Flag) {
		vals := []string{f.Value.String()}
		if m, ok := f.Value.(*multiFlag); ok {
			vals = *m
		}
		for _, v := range vals {
			if (f.Name == "workspace" || f.Name == "tls-cert" || f.Name == "tls-key") && err == nil {
				v, err = filepath.Abs(v)
			}
			if strings.ContainsAny(v, "\x00\n\r") {
				err = fmt.Errorf("--%s %q holds a line break, which a service file cannot carry", f.Name, v)
			}
			out = append(out, "--"+f.Name+"="+v)
		}
	})
	return out, err
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) //nolint:errcheck // gone after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// shell runs the service manager's command line tool and shows each
// command it runs, so that the user sees what was done on their behalf.
type shell struct {
	out io.Writer
}

// errNoTool says the manager's tool is not on PATH.
var errNoTool = errors.New("not found on PATH")

// run runs name with args; its output is returned, and shown when it
// fails.
func (sh *shell) run(name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, errNoTool)
	}
	fmt.Fprintf(sh.out, "$ %s %s\n", name, strings.Join(args, " "))
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return string(out), commandError(name, args, err, out)
	}
	return string(out), nil
}

// query runs a read-only command without showing it (status). Its error
// carries what the command said on stderr.
func (sh *shell) query(name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, errNoTool)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return strings.TrimSpace(stdout.String()), commandError(name, args, err, stderr.Bytes())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// commandError names the command and what it said, or else how it ended.
func commandError(name string, args []string, err error, said []byte) error {
	if s := strings.TrimSpace(string(said)); s != "" {
		return fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), s)
	}
	return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
}
