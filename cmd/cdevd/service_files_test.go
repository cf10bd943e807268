package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
