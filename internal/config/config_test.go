package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeHome makes a $CDEVD_HOME holding config.toml with content and mode.
func writeHome(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode is filtered by the umask; the tests need it exact.
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return home
}

var builtIns = []string{"claude", "codex", "gemini"}

func TestLoadGoodFile(t *testing.T) {
	home := writeHome(t, `
# Two agents, in both of TOML's spellings for their tables.
[[acp_agent]]
id = "goose"
name = "Goose"
command = "/opt/goose/bin/goose"
args = ["acp", "--verbose"]
env = { GOOSE_PROVIDER = "anthropic", "ODD KEY" = "x" }

[[acp_agent]]
id = "my-agent_2"
command = "my-agent"

[acp_agent.env]
TOKEN = "s3cret"
`, 0o600)
	cfg, err := Load(home, builtIns...)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Path: filepath.Join(home, "config.toml"),
		ACPAgents: []ACPAgent{
			{
				ID: "goose", Name: "Goose", Command: "/opt/goose/bin/goose",
				Args: []string{"acp", "--verbose"},
				Env:  Env{"GOOSE_PROVIDER": "anthropic", "ODD KEY": "x"},
			},
			// No name: the id stands in. No args: none.
			{ID: "my-agent_2", Name: "my-agent_2", Command: "my-agent", Env: Env{"TOKEN": "s3cret"}},
		},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load =\n%s\nwant\n%s", dump(cfg), dump(want))
	}
}

// TestLoadOtherSpellings: TOML has other ways to write the agents' array;
// they declare the same agents, and errors still find their lines.
func TestLoadOtherSpellings(t *testing.T) {
	t.Run("inline array", func(t *testing.T) {
		home := writeHome(t, "acp_agent = [\n  { id = \"a\", command = \"a\" },\n  { id = \"a\", command = \"b\" },\n]\n", 0o600)
		_, err := Load(home)
		wantErr(t, err, filepath.Join(home, "config.toml")+`:3:5: acp_agent #2: id: "a" is already declared by acp_agent #1 (line 2)`)
	})
	t.Run("a lone table", func(t *testing.T) {
		home := writeHome(t, "[acp_agent]\nid = \"a\"\ncommand = \"a\"\nenv = { \"\" = \"x\" }\n", 0o600)
		_, err := Load(home)
		wantErr(t, err, filepath.Join(home, "config.toml")+`:4:9: acp_agent #1: env."": empty variable name`)

		home = writeHome(t, "[acp_agent]\nid = \"a\"\ncommand = \"a\"\n", 0o600)
		cfg, err := Load(home)
		if err != nil || len(cfg.ACPAgents) != 1 || cfg.ACPAgents[0].ID != "a" {
			t.Errorf("Load = %s, %v; want agent a", dump(cfg), err)
		}
	})
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	for name, home := range map[string]string{
		"no file":           t.TempDir(),
		"no home directory": filepath.Join(t.TempDir(), "absent"),
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Load(home, builtIns...)
			if err != nil {
				t.Fatal(err)
			}
			want := Config{Path: filepath.Join(home, "config.toml")}
			if !reflect.DeepEqual(cfg, want) {
				t.Errorf("Load =\n%s\nwant\n%s", dump(cfg), dump(want))
			}
		})
	}
}

func TestLoadEmptyFile(t *testing.T) {
	cfg, err := Load(writeHome(t, "# nothing declared yet\n", 0o600))
	if err != nil || len(cfg.ACPAgents) != 0 || len(cfg.Warnings) != 0 {
		t.Fatalf("Load = %+v, %v; want no agents, no warnings, no error", cfg, err)
	}
}

func TestLoadRefusesOddFiles(t *testing.T) {
	t.Run("no home given", func(t *testing.T) {
		_, err := Load("")
		wantErr(t, err, "config: no home directory given")
	})
	t.Run("a directory", func(t *testing.T) {
		home := t.TempDir()
		if err := os.Mkdir(filepath.Join(home, FileName), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Load(home)
		wantErr(t, err, filepath.Join(home, FileName)+": not a regular file")
	})
	t.Run("a FIFO", func(t *testing.T) {
		home := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(home, FileName), 0o600); err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(home, FileName)
		loaded := make(chan error, 1)
		go func() {
			_, err := Load(home)
			loaded <- err
		}()
		select {
		case err := <-loaded:
			wantErr(t, err, fifo+": not a regular file")
		case <-time.After(10 * time.Second):
			// Load opened the FIFO and waits for a writer: be that writer,
			// so that the goroutine ends, and fail.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-loaded
			t.Fatal("Load blocked opening a FIFO")
		}
	})
	t.Run("too large", func(t *testing.T) {
		home := writeHome(t, "#"+strings.Repeat("x", maxFileSize)+"\n", 0o600)
		_, err := Load(home)
		wantErr(t, err, "larger than 1048576 bytes")
	})
	t.Run("home is a file", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(home, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(home)
		wantErr(t, err, "not a directory")
	})
}

// TestLoadErrors runs every kind of mistake: each error must name the file,
// the line and column, the key, and what is wrong.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, file string
		want       []string // each line of the error, after "<path>:"
		hidden     string   // must not appear in the error
	}{
		{
			name: "unknown key",
			file: "[[acp_agent]]\nid = \"goose\"\ncomand = \"goose\"\n",
			want: []string{"3:1: unknown key acp_agent.comand (an acp_agent has id, name, command, args and env)"},
		},
		{
			name: "unknown keys everywhere, all reported",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\n[[acp_agent]]\nid = \"b\"\ncommand = \"b\"\n  agrs = []\n[server]\nport = 1\n",
			want: []string{
				"7:3: unknown key acp_agent.agrs (an acp_agent has id, name, command, args and env)",
				"8:2: unknown key server (the file declares agents with [[acp_agent]] and notifications with [notify])",
			},
		},
		{
			name: "misspelt table",
			file: "[[acp_agents]]\nid = \"a\"\n",
			want: []string{"1:3: unknown key acp_agents (the file declares agents with [[acp_agent]] and notifications with [notify])"},
		},
		{
			name: "missing id",
			file: "[[acp_agent]]\ncommand = \"goose\"\n",
			want: []string{`1:3: acp_agent #1: id: missing; give the agent_type clients will send, like "goose"`},
		},
		{
			name: "missing command",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\n\n[[acp_agent]]\nid = \"goose\"\n",
			want: []string{"5:3: acp_agent #2: command: missing; give a name on PATH or an absolute path"},
		},
		{
			name: "bad id",
			file: "[[acp_agent]]\nid = \"Goose\"\ncommand = \"goose\"\n",
			want: []string{`2:1: acp_agent #1: id: "Goose" is not a valid id: want a lowercase letter, then up to 31 of a-z, 0-9, '_' and '-'`},
		},
		{
			name: "id too long",
			file: "[[acp_agent]]\nid = \"a" + strings.Repeat("b", 32) + "\"\ncommand = \"goose\"\n",
			want: []string{`2:1: acp_agent #1: id: "a` + strings.Repeat("b", 32) + `" is not a valid id`},
		},
		{
			name: "duplicate id",
			file: "[[acp_agent]]\nid = \"goose\"\ncommand = \"goose\"\n[[acp_agent]]\ncommand = \"goose2\"\n    id = \"goose\"\n",
			want: []string{`6:5: acp_agent #2: id: "goose" is already declared by acp_agent #1 (line 2)`},
		},
		{
			name: "clash with a built-in runtime",
			file: "[[acp_agent]]\nid = \"gemini\"\ncommand = \"gemini\"\nargs = [\"--acp\"]\n",
			want: []string{`2:1: acp_agent #1: id: "gemini" is a built-in runtime; choose another id`},
		},
		{
			name: "env key with =",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nenv = { OK = \"1\", \"A=B\" = \"2\" }\n",
			want: []string{`4:19: acp_agent #1: env."A=B": a variable name cannot hold '=' or a NUL byte`},
		},
		{
			name: "two env keys wrong, in name order",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nenv = { \"Z=\" = \"1\", \"A=\" = \"2\" }\n",
			want: []string{
				`4:21: acp_agent #1: env."A=": a variable name cannot hold '=' or a NUL byte`,
				`4:9: acp_agent #1: env."Z=": a variable name cannot hold '=' or a NUL byte`,
			},
		},
		{
			name: "empty env key, in an env table",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\n[acp_agent.env]\nOK = \"1\"\n\"\" = \"2\"\n",
			want: []string{`6:1: acp_agent #1: env."": empty variable name`},
		},
		{
			name:   "env value with NUL, not echoed",
			file:   "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nenv.TOKEN = \"hunter2\\u0000\"\n",
			want:   []string{`4:1: acp_agent #1: env.TOKEN: the value holds a NUL byte, which no environment variable can carry`},
			hidden: "hunter2",
		},
		{
			name: "argument with NUL",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nargs = [\"ok\", \"b\\u0000d\"]\n",
			want: []string{`4:1: acp_agent #1: args: element 2 holds a NUL byte, which no process argument can carry`},
		},
		{
			name: "relative command",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"bin/agent\"\n",
			want: []string{`3:1: acp_agent #1: command: "bin/agent" is a relative path; give a name on PATH, an absolute path or one starting with ~/`},
		},
		{
			name: "another user's home",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"~bob/agent\"\n",
			want: []string{`3:1: acp_agent #1: command: "~bob/agent": only a leading "~/" (your home directory) is expanded`},
		},
		{
			name: "id of the wrong type",
			file: "[[acp_agent]]\nid = 3\n",
			want: []string{"2:6: acp_agent.id: want a string, found integer"},
		},
		{
			name: "args of the wrong type",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nargs = \"acp --verbose\"\n",
			want: []string{"4:8: acp_agent.args: want an array of strings, found string"},
		},
		{
			name: "args element of the wrong type",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nargs = [\"acp\", 2]\n",
			want: []string{"4:16: acp_agent.args: want an array of strings, found integer"},
		},
		{
			name: "env value of the wrong type",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nenv = { PORT = 8080 }\n",
			want: []string{`4:16: acp_agent.env: want a table of strings, like { NAME = "value" }, found integer`},
		},
		{
			name: "acp_agent of the wrong type",
			file: "acp_agent = \"goose\"\n",
			want: []string{"1:13: acp_agent: want an array of tables, [[acp_agent]], found string"},
		},
		{
			name: "not TOML",
			file: "[[acp_agent]]\nid = \"a\"\ncommand = \n",
			want: []string{"3:11: unexpected character U+000A at start of value"},
		},
		{
			name: "not TOML: key defined twice",
			file: "[[acp_agent]]\nid = \"a\"\nid = \"b\"\n",
			want: []string{"3:1: id: key id is already defined"},
		},
		{
			name: "every agent's problems at once",
			file: "[[acp_agent]]\nid = \"claude\"\n\n[[acp_agent]]\nid = \"ok\"\ncommand = \"ok\"\n\n[[acp_agent]]\nid = \"x y\"\ncommand = \"./x\"\n",
			want: []string{
				`2:1: acp_agent #1: id: "claude" is a built-in runtime; choose another id`,
				`1:3: acp_agent #1: command: missing; give a name on PATH or an absolute path`,
				`9:1: acp_agent #3: id: "x y" is not a valid id`,
				`10:1: acp_agent #3: command: "./x" is a relative path`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeHome(t, c.file, 0o600)
			cfg, err := Load(home, builtIns...)
			if err == nil {
				t.Fatalf("Load = %+v, want an error", cfg)
			}
			if len(cfg.ACPAgents) != 0 {
				t.Errorf("Load returned agents with its error: %v", cfg.ACPAgents)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(c.want) {
				t.Fatalf("error has %d lines, want %d:\n%v", len(lines), len(c.want), err)
			}
			path := filepath.Join(home, "config.toml")
			for i, line := range lines {
				if want := path + ":" + c.want[i]; !strings.HasPrefix(line, want) {
					t.Errorf("error line %d:\n got %s\nwant %s", i+1, line, want)
				}
			}
			if c.hidden != "" && strings.Contains(err.Error(), c.hidden) {
				t.Errorf("error echoes the env value: %v", err)
			}
		})
	}
}

func TestEnvironOverridesAndSorts(t *testing.T) {
	a := ACPAgent{Env: Env{"ZED": "z", "HOME": "/agent-home", "ALPHA": "a=b"}}
	base := []string{"PATH=/usr/bin", "HOME=/root", "LANG=C", "HOME=/again", "=C:=C:\\"}
	got := a.Environ(base)
	want := []string{
		// base order kept, minus what the agent sets (both HOME entries)...
		"PATH=/usr/bin", "LANG=C", "=C:=C:\\",
		// ...then the agent's, by name.
		"ALPHA=a=b", "HOME=/agent-home", "ZED=z",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Environ =\n%q\nwant\n%q", got, want)
	}
	if !slices.Equal(base, []string{"PATH=/usr/bin", "HOME=/root", "LANG=C", "HOME=/again", "=C:=C:\\"}) {
		t.Errorf("Environ changed its argument: %q", base)
	}
	if got := (ACPAgent{}).Environ(base); !slices.Equal(got, base) {
		t.Errorf("Environ without env = %q, want base", got)
	}
}

func TestTildeExpandsToHome(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	home := writeHome(t, "[[acp_agent]]\nid = \"a\"\ncommand = \"~/bin/agent\"\nargs = [\"~/not-expanded\"]\n", 0o600)
	cfg, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.ACPAgents[0]
	if want := filepath.Join(userHome, "bin", "agent"); a.Command != want {
		t.Errorf("Command = %q, want %q", a.Command, want)
	}
	if a.Args[0] != "~/not-expanded" {
		t.Errorf("Args = %q, want them verbatim", a.Args)
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "agent")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)

	cases := []struct {
		command, want, wantErr string
	}{
		{command: "agent", want: exe},
		{command: exe, want: exe},
		{command: "goose", wantErr: `command "goose" not found on PATH`},
		{command: filepath.Join(dir, "absent"), wantErr: `command "` + filepath.Join(dir, "absent") + `": no such file or directory`},
		{command: plain, wantErr: `command "` + plain + `": permission denied`},
		{command: dir, wantErr: `command "` + dir + `": is a directory`},
	}
	for _, c := range cases {
		got, err := ACPAgent{ID: "a", Command: c.command}.LookPath()
		if c.wantErr != "" {
			wantErr(t, err, c.wantErr)
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("LookPath(%q) = %q, %v; want %q", c.command, got, err, c.want)
		}
	}
}

func TestPermissionWarning(t *testing.T) {
	withEnv := "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\nenv = { TOKEN = \"s3cret\" }\n"
	withoutEnv := "[[acp_agent]]\nid = \"a\"\ncommand = \"a\"\n"
	cases := []struct {
		name, file string
		mode       os.FileMode
		warn       bool
	}{
		{"private with env", withEnv, 0o600, false},
		{"group-readable with env", withEnv, 0o640, true},
		{"world-readable with env", withEnv, 0o644, true},
		{"world-readable without env", withoutEnv, 0o644, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeHome(t, c.file, c.mode)
			cfg, err := Load(home)
			if err != nil {
				t.Fatal(err)
			}
			if !c.warn {
				if len(cfg.Warnings) != 0 {
					t.Errorf("Warnings = %q, want none", cfg.Warnings)
				}
				return
			}
			if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "chmod 600 "+cfg.Path) ||
				strings.Contains(cfg.Warnings[0], "s3cret") {
				t.Errorf("Warnings = %q, want one that says chmod 600 and hides the value", cfg.Warnings)
			}
		})
	}
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want one containing %q", err, want)
	}
}

// dump shows a Config in full, env values included: ACPAgent's own
// formatting hides them, which would make a failure unreadable.
func dump(c Config) string {
	s := fmt.Sprintf("Path %q Warnings %q\n", c.Path, c.Warnings)
	for _, a := range c.ACPAgents {
		s += fmt.Sprintf("  {ID %q Name %q Command %q Args %#v Env %#v}\n", a.ID, a.Name, a.Command, a.Args, map[string]string(a.Env))
	}
	return s
}

// TestSecretsNeverShown prints and logs an agent every way cdevd might:
// the env value must never appear, the name must.
func TestSecretsNeverShown(t *testing.T) {
	const secret = "hunter2"
	a := ACPAgent{ID: "goose", Name: "Goose", Command: "goose", Args: []string{"acp"}, Env: Env{"GOOSE_API_KEY": secret}}
	cfg := Config{Path: "/x/config.toml", ACPAgents: []ACPAgent{a}}

	var logged bytes.Buffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&logged), zap.DebugLevel))
	log.Info("declared", zap.Object("object", a), zap.Any("any", a), zap.Any("env", a.Env),
		zap.Reflect("reflect", a), zap.Stringer("stringer", a), zap.Any("config", cfg))
	asJSON, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{
		"%v":          fmt.Sprintf("%v", a),
		"%+v":         fmt.Sprintf("%+v", a),
		"%#v":         fmt.Sprintf("%#v", a),
		"%s env":      fmt.Sprintf("%s", a.Env),
		"%#v env":     fmt.Sprintf("%#v", a.Env),
		"%+v config":  fmt.Sprintf("%+v", cfg),
		"%#v config":  fmt.Sprintf("%#v", cfg),
		"json config": string(asJSON),
		"zap":         logged.String(),
	}
	for how, s := range shown {
		if strings.Contains(s, secret) || !strings.Contains(s, "GOOSE_API_KEY") {
			t.Errorf("%s shows %s; want the env name and not its value", how, s)
		}
	}
	if want := `goose (Goose): ["goose" "acp"] env [GOOSE_API_KEY=REDACTED]`; a.String() != want {
		t.Errorf("String = %s, want %s", a.String(), want)
	}
	if got := string(must(json.Marshal(Env(nil)))); got != "null" {
		t.Errorf("nil Env as JSON = %s, want null", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
