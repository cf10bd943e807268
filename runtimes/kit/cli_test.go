package kit

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A relative CLI path names a file where cdevd starts, resolved there once:
// later, sessions run in other directories (workspaces).
func TestBinResolvesARelativePathWhereCdevdStarts(t *testing.T) {
	start := t.TempDir()
	t.Chdir(start)
	for _, c := range []struct {
		bin  string
		env  []string
		want string
	}{
		{"bin/claude", nil, filepath.Join(start, "bin", "claude")},
		{"", []string{"CLAUDE_BIN=node_modules/.bin/claude"}, filepath.Join(start, "node_modules", ".bin", "claude")},
		{"./claude", nil, filepath.Join(start, "claude")},
		{"/opt/claude", nil, "/opt/claude"},
		{"", []string{"CLAUDE_BIN=/opt/claude"}, "/opt/claude"},
		{"", []string{"CLAUDE_BIN=claude-beta"}, "claude-beta"}, // a name, looked up on PATH
		{"", nil, "claude"},
	} {
		if got := Bin(c.bin, c.env, "CLAUDE_BIN", "claude"); got != c.want {
			t.Errorf("Bin(%q, %q) = %q, want %q", c.bin, c.env, got, c.want)
		}
	}

	// Detection finds the resolved CLI from wherever it runs later.
	cli := filepath.Join(start, "bin", "claude")
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, []byte("#!/bin/sh\necho '2.1.0 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := Bin("bin/claude", nil, "CLAUDE_BIN", "claude")
	t.Chdir(t.TempDir())
	version := regexp.MustCompile(`^\d+\.\d+\.\d+`)
	av := DetectVersion(context.Background(), "claude", bin, "CLAUDE_BIN", nil, version)
	if !av.Installed || av.Path != cli || av.Version != "2.1.0" || av.Reason != "" {
		t.Errorf("DetectVersion(%s) = %+v", bin, av)
	}
	// A path that is still relative (cdevd's directory was gone) is refused.
	av = DetectVersion(context.Background(), "claude", "bin/claude", "CLAUDE_BIN", nil, version)
	if av.Installed || !strings.Contains(av.Reason, "CLAUDE_BIN=bin/claude is a relative path") {
		t.Errorf("DetectVersion(bin/claude) = %+v, want it refused with the reason", av)
	}
}
