package proc_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes/proc"
)

func TestAbsolutePATH(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"HOME=/h", "PATH=/usr/bin:/bin"}, []string{"HOME=/h", "PATH=/usr/bin:/bin"}},
		{[]string{"PATH=bin:/usr/bin::node_modules/.bin:.:/bin:", "A=b"}, []string{"PATH=/usr/bin:/bin", "A=b"}},
		// Empty would be the current directory to execvp: no PATH at all
		// searches its default instead.
		{[]string{"PATH=", "A=b"}, []string{"A=b"}},
		{[]string{"PATH=.:bin", "A=b"}, []string{"A=b"}},
		// Every PATH is filtered: which one a program reads varies.
		{[]string{"PATH=./x:/a", "PATH=/b:y"}, []string{"PATH=/a", "PATH=/b"}},
		{[]string{"MYPATH=bin", "A=PATH=bin"}, []string{"MYPATH=bin", "A=PATH=bin"}},
	} {
		if got := proc.AbsolutePATH(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("AbsolutePATH(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	t.Setenv("PATH", "rel:/usr/bin")
	if got := proc.AbsolutePATH(nil); !slices.Contains(got, "PATH=/usr/bin") || slices.Contains(got, "PATH=rel:/usr/bin") {
		t.Errorf("AbsolutePATH(nil) does not filter the daemon's own PATH: %q", got)
	}
}

// plantedWorkspace is a session's directory that ships programs: each
// writes its name to the returned file when it runs.
func plantedWorkspace(t *testing.T, names ...string) (dir, ran string) {
	t.Helper()
	dir, ran = t.TempDir(), filepath.Join(t.TempDir(), "ran")
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho " + name + " >> '" + ran + "'\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, ran
}

func notRun(t *testing.T, ran string) {
	t.Helper()
	if data, err := os.ReadFile(ran); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the workspace's program ran: %q (%v)", data, err)
	}
}

// Run from the session's directory, a relative path would be the
// workspace's file: it is refused.
func TestStartRefusesARelativePath(t *testing.T) {
	ws, ran := plantedWorkspace(t, "bin/claude")
	p, err := proc.Start(proc.Config{Path: "bin/claude", Dir: ws})
	if err == nil {
		<-p.Done()
		notRun(t, ran)
		t.Fatal("a relative path was started")
	}
	if !strings.Contains(err.Error(), "relative path") {
		t.Errorf("error %q does not say why", err)
	}
	notRun(t, ran)
}

// A program that finds another through PATH, as a Node CLI finds node
// (#!/usr/bin/env node), finds none in the session's directory through a
// relative or an empty entry.
func TestStartGivesOnlyAbsolutePATHEntries(t *testing.T) {
	const interp = "cdevd-test-interpreter" // on no real PATH
	ws, ran := plantedWorkspace(t, "nodebin/"+interp, interp)
	cli := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(cli, []byte("#!/usr/bin/env "+interp+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"nodebin:/usr/bin:/bin", ":/usr/bin:/bin", "/usr/bin:/bin:", "."} {
		p, err := proc.Start(proc.Config{Path: cli, Dir: ws, Env: []string{"PATH=" + path}})
		if err != nil {
			t.Fatal(err)
		}
		<-p.Done()
		notRun(t, ran)
		if p.ExitCode() == 0 {
			t.Errorf("PATH=%s: the CLI found an interpreter", path)
		}
	}
}
