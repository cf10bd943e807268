package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svcEnv is a user's shell for the service commands: a temp HOME holding
// files of its own, a PATH of nothing but bin, and cdevd at a fixed path.
type svcEnv struct {
	home, bin, log, exe string
}

func newSvcEnv(t *testing.T) *svcEnv {
	e := &svcEnv{home: t.TempDir(), bin: t.TempDir(), exe: "/usr/local/bin/cdevd"}
	e.log = filepath.Join(e.bin, "calls.log")
	t.Setenv("HOME", e.home)
	t.Setenv("PATH", e.bin)
	for _, k := range append([]string{"XDG_CONFIG_HOME", "CDEVD_TOKEN"}, serviceEnvVars()...) {
		t.Setenv(k, "")
	}
	old := executable
	executable = func() (string, error) { return e.exe, nil }
	t.Cleanup(func() { executable = old })
	// What the user had before: none of it may change.
	for name, data := range map[string]string{
		".config/systemd/user/other.service":                      "[Service]\nExecStart=/bin/true\n",
		".config/systemd/user/default.target.wants/.keep":         "",
		".config/cdevd/token":                                     "0123",
		"Library/LaunchAgents/com.example.other.plist":            "<plist/>",
		"Library/Logs/cdevd/old.log":                              "earlier run\n",
		".config/systemd/user/default.target.wants/other.service": "",
	} {
		p := filepath.Join(e.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// fake writes a service manager's tool into bin: a shell script that logs
// each call and keeps state in files beside it. PATH holds nothing else,
// so it may use shell builtins only.
func (e *svcEnv) fake(t *testing.T, name, cases string) {
	script := fmt.Sprintf("#!/bin/sh\nS=%q\necho \"$*\" >> %q\ncase \"$*\" in\n%s\nesac\nexit 0\n", e.bin, e.log, cases)
	if err := os.WriteFile(filepath.Join(e.bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// calls returns the calls logged since the last time, without the queries
// (whose names start with is- or print).
func (e *svcEnv) calls(t *testing.T) []string {
	data, err := os.ReadFile(e.log)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.log); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[0], "print") || strings.HasPrefix(f[1], "is-") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// files is every file and link under dir, with its content or target.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			dst, err := os.Readlink(p)
			m[rel] = "-> " + dst
			return err
		}
		data, err := os.ReadFile(p)
		m[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// added is what after has that before had not, or had otherwise; it fails
// the test if before had anything after lacks.
func added(t *testing.T, before, after map[string]string) []string {
	t.Helper()
	var out []string
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s was removed", k)
		}
	}
	return out
}

func svc(t *testing.T, goos string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := serviceOn(goos, args, &out, &errb)
	return out.String() + errb.String(), err
}

const fakeSystemctl = `
"--user is-enabled cdevd.service") if [ -s "$S/enabled" ]; then echo enabled; exit 0; fi; echo disabled; exit 1;;
"--user is-active cdevd.service") if [ -s "$S/active" ]; then echo active; exit 0; fi; echo inactive; exit 3;;
"--user enable cdevd.service") echo y > "$S/enabled";;
"--user disable --now cdevd.service") : > "$S/enabled"; : > "$S/active";;
"--user start cdevd.service"|"--user restart cdevd.service") echo y > "$S/active";;`

// install, install again, uninstall, uninstall again, with a systemctl
// that records what it is asked: each command asks only for what is
// needed, always of the user's manager, and HOME ends as it began.
func TestServiceSystemdInstallUninstallIdempotent(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	t.Setenv("CDEVD_TOKEN", "secret-token-never-in-a-unit-file-0123456789")
	t.Chdir(t.TempDir()) // where the relative paths are, and the workspace
	if err := os.Mkdir("proj", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CDEVD_HOME", "rel/state")
	before := files(t, e.home)
	unit := filepath.Join(".config", "systemd", "user", systemdUnitName)

	out, err := svc(t, "linux", "install", "--", "--workspace", "proj", "--addr", "127.0.0.1:16181")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if got := added(t, before, files(t, e.home)); fmt.Sprint(got) != fmt.Sprint([]string{unit}) {
		t.Fatalf("install wrote %v, want only %s", got, unit)
	}
	want := []string{"--user daemon-reload", "--user enable cdevd.service", "--user restart cdevd.service"}
	if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("install ran systemctl %q, want %q", got, want)
	}
	data, _ := os.ReadFile(filepath.Join(e.home, unit))
	cwd, _ := os.Getwd()
	for _, w := range []string{
		"ExecStart=/usr/local/bin/cdevd serve --addr=127.0.0.1:16181 --workspace=" + filepath.Join(cwd, "proj") + "\n",
		"Environment=PATH=" + e.bin + "\n", "Environment=HOME=" + e.home + "\n",
		"Environment=CDEVD_HOME=" + filepath.Join(cwd, "rel", "state") + "\n",
	} {
		if !strings.Contains(string(data), w) {
			t.Errorf("the unit lacks %q:\n%s", w, data)
		}
	}
	if strings.Contains(string(data), "secret-token") || strings.Contains(string(data), "CDEVD_TOKEN") {
		t.Errorf("the token is in the unit:\n%s", data)
	}
	if !strings.Contains(out, "CDEVD_TOKEN is not passed") {
		t.Errorf("install did not say the token stays out:\n%s", out)
	}
	status, err := svc(t, "linux", "status")
	if err != nil || !strings.Contains(status, "installed: yes") || !strings.Contains(status, "enabled:   yes") ||
		!strings.Contains(status, "running:   yes (active)") {
		t.Errorf("status after install: %v\n%s", err, status)
	}

	// Again, unchanged: the file stays, a running service is left alone.
	if out, err := svc(t, "linux", "install", "--", "--addr=127.0.0.1:16181", "--workspace", filepath.Join(cwd, "proj")); err != nil || !strings.Contains(out, "up to date") {
		t.Fatalf("install again: %v\n%s", err, out)
	}
	want = []string{"--user daemon-reload", "--user enable cdevd.service", "--user start cdevd.service"}
	if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("install again ran systemctl %q, want %q", got, want)
	}

	// Changed flags: the unit is rewritten and the service restarted.
	if out, err := svc(t, "linux", "install", "--", "--addr=127.0.0.1:16182"); err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("install with new flags: %v\n%s", err, out)
	}
	if got := e.calls(t); len(got) != 3 || got[2] != "--user restart cdevd.service" {
		t.Errorf("install with new flags ran %q", got)
	}

	if out, err := svc(t, "linux", "uninstall"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	want = []string{"--user disable --now cdevd.service", "--user daemon-reload", "--user reset-failed cdevd.service"}
	if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("uninstall ran systemctl %q, want %q", got, want)
	}
	if got := added(t, before, files(t, e.home)); len(got) != 0 {
		t.Errorf("after uninstall, HOME differs in %v", got)
	}
	status, _ = svc(t, "linux", "status")
	if !strings.Contains(status, "installed: no") || !strings.Contains(status, "running:   no") {
		t.Errorf("status after uninstall:\n%s", status)
	}
	if out, err := svc(t, "linux", "uninstall"); err != nil || !strings.Contains(out, "not installed") {
		t.Errorf("uninstall again: %v\n%s", err, out)
	}
	if got := e.calls(t); len(got) != 0 {
		t.Errorf("uninstall of nothing ran %q", got)
	}
}

// Without systemctl (a container): the unit is written, install says it
// is not started and how to start it, and uninstall removes what install
// wrote, including the link enable would have made elsewhere.
// The service does not run where install ran, and its CLIs run in
// workspaces: no relative path reaches its file. CLI paths and homes are
// made absolute from here; relative and empty PATH entries are left out.
func TestServiceInstallWritesNoRelativePath(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	t.Setenv("PATH", "bin::"+e.bin+":node_modules/.bin:.:")
	t.Setenv("CLAUDE_BIN", "node_modules/.bin/claude")
	t.Setenv("CODEX_BIN", "codex") // a name, looked up on PATH
	t.Setenv("GEMINI_BIN", "/opt/gemini/bin/gemini")
	t.Setenv("CODEX_HOME", "rel/codex")
	out, err := svc(t, "linux", "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(e.home, ".config", "systemd", "user", systemdUnitName))
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	for _, w := range []string{
		"Environment=PATH=" + e.bin + "\n",
		"Environment=CLAUDE_BIN=" + filepath.Join(cwd, "node_modules", ".bin", "claude") + "\n",
		"Environment=CODEX_BIN=codex\n",
		"Environment=GEMINI_BIN=/opt/gemini/bin/gemini\n",
		"Environment=CODEX_HOME=" + filepath.Join(cwd, "rel", "codex") + "\n",
	} {
		if !strings.Contains(string(data), w) {
			t.Errorf("the unit lacks %q:\n%s", w, data)
		}
	}
	for _, w := range []string{`left out of the service: ["bin" "" "node_modules/.bin" "." ""]`,
		"CLAUDE_BIN=node_modules/.bin/claude is written as " + filepath.Join(cwd, "node_modules", ".bin", "claude")} {
		if !strings.Contains(out, w) {
			t.Errorf("install did not say %q:\n%s", w, out)
		}
	}

	t.Setenv("PATH", "bin:.")
	if out, err := svc(t, "linux", "install"); err == nil || !strings.Contains(err.Error(), "no absolute directory") {
		t.Errorf("install with no absolute PATH entry: %v\n%s", err, out)
	}
}

func TestServiceSystemdWithoutSystemctl(t *testing.T) {
	e := newSvcEnv(t)
	before := files(t, e.home)
	out, err := svc(t, "linux", "install")
	if err != nil || !strings.Contains(out, "NOT STARTED: systemctl is not on PATH") ||
		!strings.Contains(out, "systemctl --user daemon-reload && systemctl --user enable --now cdevd.service") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if got := added(t, before, files(t, e.home)); len(got) != 1 {
		t.Fatalf("install wrote %v", got)
	}
	status, err := svc(t, "linux", "status")
	if err != nil || !strings.Contains(status, "installed: yes") || !strings.Contains(status, "running:   unknown") {
		t.Errorf("status: %v\n%s", err, status)
	}
	// As if enabled from a login session, uninstalled from one without.
	s := systemdUser{home: e.home}
	if err := os.Symlink(s.file(), s.wantsLink()); err != nil {
		t.Fatal(err)
	}
	if out, err := svc(t, "linux", "uninstall"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got := added(t, before, files(t, e.home)); len(got) != 0 {
		t.Errorf("after uninstall, HOME differs in %v", got)
	}
}

// A cdevd.service the user wrote is neither replaced nor removed.
func TestServiceLeavesAForeignUnitAlone(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	path := systemdUser{home: e.home}.file()
	mine := "[Service]\nExecStart=/home/me/cdevd serve\n"
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"install", "uninstall"} {
		if out, err := svc(t, "linux", cmd); err == nil || !strings.Contains(err.Error(), "not written by `cdevd service install`") {
			t.Errorf("%s: %v\n%s", cmd, err, out)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != mine {
		t.Errorf("the user's unit changed:\n%s", data)
	}
	if got := e.calls(t); len(got) != 0 {
		t.Errorf("systemctl was asked %q", got)
	}
}

// A serve flag that serve would refuse fails install, which writes nothing.
func TestServiceInstallChecksServeFlags(t *testing.T) {
	e := newSvcEnv(t)
	before := files(t, e.home)
	for _, args := range [][]string{{"--worksapce", "x"}, {"--idle-timeout", "soon"}, {"stray"}} {
		out, err := svc(t, "linux", append([]string{"install", "--"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "serve flags") {
			t.Errorf("install -- %q: %v\n%s", args, err, out)
		}
	}
	if got := added(t, before, files(t, e.home)); len(got) != 0 {
		t.Errorf("HOME changed: %v", got)
	}
}

const fakeLaunchctl = `
"print gui/"*"/io.github.cdevd.cdevd") if [ -s "$S/loaded" ]; then printf '\tstate = running\n\tpid = 4242\n'; exit 0; fi; echo 'Could not find service' >&2; exit 113;;
"print-disabled gui/"*) echo 'disabled services = {'; echo '}';;
"bootstrap gui/"*) echo y > "$S/loaded";;
"bootout gui/"*) : > "$S/loaded";;`

// The same for launchd, with a launchctl that records its calls.
func TestServiceLaunchdInstallUninstallIdempotent(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "launchctl", fakeLaunchctl)
	before := files(t, e.home)
	target := fmt.Sprintf("gui/%d/%s", os.Getuid(), launchdLabel)
	plist := filepath.Join("Library", "LaunchAgents", launchdLabel+".plist")

	ws := t.TempDir()
	if out, err := svc(t, "darwin", "install", "--", "--workspace="+ws); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if got := added(t, before, files(t, e.home)); fmt.Sprint(got) != fmt.Sprint([]string{plist}) {
		t.Fatalf("install wrote %v, want only %s", got, plist)
	}
	want := []string{fmt.Sprintf("bootstrap gui/%d %s", os.Getuid(), filepath.Join(e.home, plist))}
	if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("install ran launchctl %q, want %q", got, want)
	}
	if status, _ := svc(t, "darwin", "status"); !strings.Contains(status, "enabled:   yes") || !strings.Contains(status, "running:   yes (pid 4242)") {
		t.Errorf("status:\n%s", status)
	}
	if out, err := svc(t, "darwin", "install", "--", "--workspace="+ws); err != nil || !strings.Contains(out, "up to date") {
		t.Fatalf("install again: %v\n%s", err, out)
	}
	if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint([]string{"kickstart " + target}) {
		t.Errorf("install again ran %q", got)
	}
	if out, err := svc(t, "darwin", "install", "--", "--workspace="+t.TempDir()); err != nil {
		t.Fatalf("install changed: %v\n%s", err, out)
	}
	if got := e.calls(t); len(got) != 2 || got[0] != "bootout "+target || !strings.HasPrefix(got[1], "bootstrap ") {
		t.Errorf("install changed ran %q", got)
	}
	for i, want := range [][]string{{"bootout " + target}, nil} {
		if out, err := svc(t, "darwin", "uninstall"); err != nil {
			t.Fatalf("uninstall %d: %v\n%s", i, err, out)
		}
		if got := e.calls(t); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("uninstall %d ran %q, want %q", i, got, want)
		}
	}
	// The log directory was there already; install leaves it and its logs.
	if got := added(t, before, files(t, e.home)); len(got) != 0 {
		t.Errorf("after uninstall, HOME differs in %v", got)
	}
}

func TestServiceUsage(t *testing.T) {
	if _, err := svc(t, "linux"); err == nil {
		t.Error("no subcommand: no error")
	}
	if _, err := svc(t, "linux", "frobnicate"); err == nil {
		t.Error("unknown subcommand: no error")
	}
	if _, err := svc(t, "plan9", "status"); err == nil || !strings.Contains(err.Error(), "plan9") {
		t.Errorf("unsupported system: %v", err)
	}
}
