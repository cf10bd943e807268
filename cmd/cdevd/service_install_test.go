package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
