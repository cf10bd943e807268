package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentFile declares an agent: the file cdevd must not trust when others
// can change it.
const agentFile = "[[acp_agent]]\nid = \"goose\"\ncommand = \"/opt/goose/bin/goose\"\n"

func TestLoadRefusesFileOthersCanWrite(t *testing.T) {
	for _, mode := range []os.FileMode{0o666, 0o646, 0o620, 0o660, 0o602} {
		t.Run(mode.String(), func(t *testing.T) {
			home := writeHome(t, agentFile, mode)
			path := filepath.Join(home, FileName)
			cfg, err := Load(home, builtIns...)
			wantRefused(t, cfg, err, path+" is writable by other users", "chmod 600 "+path)
		})
	}
	// Readable by others but written only by its owner: loaded (a warning
	// is for env values, TestPermissionWarning).
	home := writeHome(t, agentFile, 0o644)
	if cfg, err := Load(home, builtIns...); err != nil || len(cfg.ACPAgents) != 1 {
		t.Fatalf("mode 0644: Load = %+v, %v", cfg, err)
	}
}

func TestLoadChecksTheTargetOfALink(t *testing.T) {
	target := filepath.Join(writeHome(t, agentFile, 0o666), FileName)
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(home, builtIns...)
	wantRefused(t, cfg, err, path+" (a link to "+target+") is writable by other users", "chmod 600 "+path)

	// The same link to a file only its owner can write is loaded.
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(home, builtIns...); err != nil || len(cfg.ACPAgents) != 1 {
		t.Fatalf("link to a mode 0600 file: Load = %+v, %v", cfg, err)
	}
}

func TestLoadRefusesAnotherUsersFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	home := writeHome(t, agentFile, 0o600)
	path := filepath.Join(home, FileName)
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(home, builtIns...)
	wantRefused(t, cfg, err, path+" belongs to another user (uid 4242)", "chmod 600 "+path)
}

func wantRefused(t *testing.T, cfg Config, err error, says ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Load = %+v, want it refused", cfg)
	}
	if len(cfg.ACPAgents) != 0 {
		t.Errorf("Load returned agents with its error: %v", cfg.ACPAgents)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}
