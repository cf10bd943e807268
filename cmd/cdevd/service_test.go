package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSpec has every character a service file must escape: blanks, a
// quote, a backslash, systemd's % specifiers and $ variables, XML's < & >.
var goldenSpec = serviceSpec{
	Exe: "/opt/cdevd tools/bin/cdevd",
	Args: []string{"serve", "--addr=127.0.0.1:16180", `--workspace=/home/ana/my "app" 100% $HOME`,
		`--workspace=/home/ana/a\b;c`, "--allow-origin=https://x.test/?a=1&b=<2>"},
	Env: []envVar{{"PATH", "/home/ana/.local/bin:/usr/bin:/bin"}, {"HOME", "/home/ana"},
		{"CDEVD_HOME", "/home/ana/.cdevd 50%"}},
	Home: "/home/ana",
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "service", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestServiceFilesGolden(t *testing.T) {
	unit, err := systemdUser{home: "/home/ana"}.render(goldenSpec)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "cdevd.service", unit)
	plist, err := launchAgent{home: "/home/ana", uid: 501}.render(goldenSpec)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, launchdLabel+".plist", plist)
}

// systemd itself reads the unit: systemd-analyze verify reports any line
// it does not understand (it exits 0 on those, so its output counts).
func TestSystemdUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the unit is checked against its golden file only")
	}
	dir := t.TempDir()
	spec := goldenSpec
	spec.Exe = os.Args[0] // verify checks that ExecStart's program exists
	unit, err := systemdUser{home: dir}.render(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, systemdUnitName)
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	// --user needs a runtime directory, which a container may not have.
	rt := filepath.Join(dir, "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sa, "verify", "--user", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte(systemdUnitName)) {
		t.Fatalf("systemd-analyze verify: %v\n%s\n%s", err, out, unit)
	}
}

func TestLaunchdPlistIsWellFormed(t *testing.T) {
	plist, err := launchAgent{home: "/Users/ana", uid: 501}.render(goldenSpec)
	if err != nil {
		t.Fatal(err)
	}
	// The program's arguments read back exactly as given.
	var doc struct {
		Dict struct {
			Inner []struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(plist, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, plist)
	}
	want := append([]string{goldenSpec.Exe}, goldenSpec.Args...)
	if len(doc.Dict.Inner) != 1 || fmt.Sprint(doc.Dict.Inner[0].Strings) != fmt.Sprint(want) {
		t.Errorf("ProgramArguments = %q, want %q", doc.Dict.Inner, want)
	}
	if plutil, err := exec.LookPath("plutil"); err == nil {
		path := filepath.Join(t.TempDir(), "x.plist")
		if err := os.WriteFile(path, plist, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(plutil, "-lint", path).CombinedOutput(); err != nil {
			t.Fatalf("plutil -lint: %v\n%s", err, out)
		}
	} else {
		t.Log("plutil is not installed (not macOS): the plist is checked as XML and against its golden file")
	}
}

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

// Every flag serve refuses, install refuses, in serve's words (after
// "serve flags after --: "), and writes nothing: a unit serve would refuse
// to run would only restart every 2 s. Both check through checkServe.
func TestServiceInstallRefusesWhatServeRefuses(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv("CDEVD_HOME", state)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		config string // config.toml, when the case is about it
	}{
		{name: "non-loopback address", args: []string{"--addr", "0.0.0.0:16180"}},
		{name: "remote address by name", args: []string{"--addr=example.com:16180", "--workspace", t.TempDir()}},
		{name: "address without a port", args: []string{"--addr", "localhost"}},
		{name: "missing workspace", args: []string{"--workspace", "/does/not/exist"}},
		{name: "workspace is a file", args: []string{"--workspace", file}},
		{name: "origin null", args: []string{"--allow-origin", "null"}},
		{name: "not an origin", args: []string{"--allow-origin", "example.com"}},
		{name: "unknown runtime", args: []string{"--disable-runtime", "nope=why"}},
		{name: "log format", args: []string{"--log-format", "xml"}},
		{name: "log level", args: []string{"--log-level", "loud"}},
		{name: "unknown flag", args: []string{"--worksapce", "x"}},
		{name: "bad duration", args: []string{"--idle-timeout", "soon"}},
		{name: "stray argument", args: []string{"stray"}},
		{name: "demo, remote", args: []string{"--demo", "--allow-remote"}},
		{name: "TLS certificate without key", args: []string{"--tls-cert", file}},
		{name: "TLS key without certificate", args: []string{"--tls-key", file}},
		{name: "TLS files that are not PEM", args: []string{"--tls-cert", file, "--tls-key", file}},
		{name: "TLS certificate missing", args: []string{"--tls-cert", "/does/not/exist.pem", "--tls-key", file}},
		{name: "public URL not https", args: []string{"--public-url", "http://mybox.example"}},
		{name: "configuration file", config: "[[acp_agent]]\nid = 'claude'\n"},
	}
	unit := systemdUser{home: e.home}.file()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.RemoveAll(state); err != nil {
				t.Fatal(err)
			}
			if c.config != "" {
				if err := os.MkdirAll(state, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(c.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			served := make(chan error, 1)
			go func() { served <- serve(c.args, io.Discard, io.Discard) }()
			var serveErr error
			select {
			case serveErr = <-served:
			case <-time.After(20 * time.Second):
				t.Fatalf("serve %q did not refuse: it is serving", c.args)
			}
			if serveErr == nil {
				t.Fatalf("serve %q did not refuse", c.args)
			}
			t.Logf("serve: %v", serveErr)
			out, err := svc(t, "linux", append([]string{"install", "--"}, c.args...)...)
			if err == nil {
				t.Fatalf("install -- %q was accepted; serve said: %v\n%s", c.args, serveErr, out)
			}
			if want := "serve flags after --: " + serveErr.Error(); err.Error() != want {
				t.Errorf("install -- %q said\n  %v\nwant serve's\n  %s", c.args, err, want)
			}
			if _, err := os.Stat(unit); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("install -- %q wrote %s", c.args, unit)
			}
			if got := e.calls(t); len(got) != 0 {
				t.Errorf("install -- %q ran systemctl %q", c.args, got)
			}
		})
	}
}

// The service finds each CLI where this shell does: one found here only
// through a relative PATH entry or in ./node_modules/.bin is written as an
// absolute *_BIN; one it would not find, or whose interpreter it would
// not find, is warned about, naming the runtime and what to do.
func TestServiceInstallRecordsTheCLIs(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	dir := t.TempDir()
	t.Chdir(dir)
	exe := func(path, script string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe(filepath.Join("tools", "claude"), "#!/usr/bin/env node\n")                   // on a relative PATH entry
	exe(filepath.Join("node_modules", ".bin", "gemini"), "#!/usr/bin/env -S node\n") // not on PATH at all
	exe(filepath.Join(e.bin, "codex"), "#!/bin/sh\n")                                // on the service's PATH
	exe(filepath.Join(e.bin, "node"), "#!/bin/sh\n")
	t.Setenv("PATH", e.bin+":tools")
	unit := systemdUser{home: e.home}.file()

	out, err := svc(t, "linux", "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(unit)
	for _, w := range []string{
		"Environment=CLAUDE_BIN=" + filepath.Join(dir, "tools", "claude") + "\n",
		"Environment=GEMINI_BIN=" + filepath.Join(dir, "node_modules", ".bin", "gemini") + "\n",
	} {
		if !strings.Contains(string(data), w) {
			t.Errorf("the unit lacks %q:\n%s", w, data)
		}
	}
	if strings.Contains(string(data), "CODEX_BIN") {
		t.Errorf("codex is on the service's PATH, yet the unit names it:\n%s", data)
	}
	if !strings.Contains(out, "note: gemini is found here only at node_modules/.bin/gemini") || strings.Contains(out, "warning") {
		t.Errorf("install said:\n%s", out)
	}

	// Without node on the service's PATH, the npm CLIs would not run;
	// without codex anywhere, neither would it.
	for _, f := range []string{"node", "codex"} {
		if err := os.Remove(filepath.Join(e.bin, f)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_BIN", "tools/nothing")
	out, err = svc(t, "linux", "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, w := range []string{
		"warning: codex is not on PATH and CODEX_BIN is not set: the codex runtime will be unavailable under the service",
		"set CODEX_BIN=/path/to/codex",
		"warning: " + filepath.Join(dir, "node_modules", ".bin", "gemini") + " runs with node, which is not on the service's PATH",
		"warning: CLAUDE_BIN=tools/nothing is not an executable file: the claude runtime will be unavailable",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("install did not say %q:\n%s", w, out)
		}
	}
}
