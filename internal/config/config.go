package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// FileName is the configuration file's name inside $CDEVD_HOME.
const FileName = "config.toml"

// maxFileSize bounds what Load reads. A real file is a few hundred bytes;
// the bound keeps a mistaken path (a log, a device) from being read whole.
const maxFileSize = 1 << 20

// agentKey is the TOML key of the agent declarations.
const agentKey = "acp_agent"

// idPattern is what an agent id must look like: it travels as agent_type on
// the wire and is used in paths and log fields, so it is kept plain.
var idPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// Config is what the configuration file declares.
type Config struct {
	// Path is the file Load read, or would have read when it is missing.
	Path string
	// ACPAgents are the declared agents, in file order.
	ACPAgents []ACPAgent
	// Notify is where notifications go ([notify]).
	Notify Notify
	// Warnings are problems that do not stop cdevd (a file others can read
	// that holds env values), for the caller to log.
	Warnings []string
}

// ACPAgent is an Agent Client Protocol agent declared in the file.
type ACPAgent struct {
	// ID is the agent_type clients send; unique, and not a built-in runtime's.
	ID string
	// Name is the display name; the ID when the file gives none.
	Name string
	// Command is a bare name, looked up on cdevd's PATH when the agent starts
	// (see LookPath), or an absolute path ("~/" already expanded).
	Command string
	// Args follow the command verbatim (no "~" expansion, no shell).
	Args []string
	// Env is added to cdevd's environment for this agent only (see Environ).
	Env Env
}

// file is the document's shape for the decoder; strict mode refuses any key
// that has no field here.
type file struct {
	ACPAgents []agentEntry `toml:"acp_agent"`
	Notify    *notifyEntry `toml:"notify"`
}

type agentEntry struct {
	ID      string            `toml:"id"`
	Name    string            `toml:"name"`
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
}

// Load reads $CDEVD_HOME/config.toml from home. A missing file is an empty
// Config. reserved are the built-in runtime ids (claude, codex, gemini): a
// declared agent may not take one. Every problem found is reported, each on
// its own line as "file:line:column: key: what is wrong".
func Load(home string, reserved ...string) (Config, error) {
	if home == "" {
		return Config{}, errors.New("config: no home directory given")
	}
	path := filepath.Join(home, FileName)
	cfg := Config{Path: path}
	// Stat before opening: opening a FIFO put there by mistake would block.
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if !info.Mode().IsRegular() {
		return cfg, fmt.Errorf("config: %s: not a regular file", path)
	}
	if err := checkTrusted(path, info); err != nil {
		return cfg, err
	}
	f, err := os.Open(path)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if len(data) > maxFileSize {
		return cfg, fmt.Errorf("config: %s: larger than %d bytes", path, maxFileSize)
	}
	agents, notify, err := parse(path, data, reserved)
	if err != nil {
		return cfg, err
	}
	cfg.ACPAgents, cfg.Notify = agents, notify
	if perm := info.Mode().Perm(); perm&0o077 != 0 && notify.hasSecrets() {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf(
			"%s is readable by group or others (mode %04o) and holds notification secrets; run chmod 600 %s",
			path, perm, path))
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 && hasEnv(agents) {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf(
			"%s is readable by group or others (mode %04o) and holds env values, which may be secrets; run chmod 600 %s",
			path, perm, path))
	}
	return cfg, nil
}

func hasEnv(agents []ACPAgent) bool {
	for _, a := range agents {
		if len(a.Env) > 0 {
			return true
		}
	}
	return false
}

// parse decodes and checks the document. path only labels errors.
func parse(path string, data []byte, reserved []string) ([]ACPAgent, Notify, error) {
	var doc file
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, Notify{}, decodeError(path, err)
	}
	if len(doc.ACPAgents) == 0 && doc.Notify == nil {
		return nil, Notify{}, nil
	}

	ps := indexPositions(data)
	var errs []error
	notify := checkNotify(doc.Notify, func(key []string, format string, args ...any) {
		at := ps.atKey(key...)
		where := keyString(key[:2])
		if len(key) > 2 {
			where = fmt.Sprintf("%s %s: %s", where, key[2], keyString(key[3:]))
		}
		errs = append(errs, fmt.Errorf("%s:%d:%d: %s: %s", path, at.line, at.col, where, fmt.Sprintf(format, args...)))
	})
	fail := func(i int, key []string, format string, args ...any) {
		at := ps.at(i, key...)
		errs = append(errs, fmt.Errorf("%s:%d:%d: %s #%d: %s: %s",
			path, at.line, at.col, agentKey, i+1, keyString(key), fmt.Sprintf(format, args...)))
	}
	builtIn := map[string]bool{}
	for _, r := range reserved {
		builtIn[r] = true
	}
	firstWithID := map[string]int{}
	var agents []ACPAgent
	for i, e := range doc.ACPAgents {
		switch first, dup := firstWithID[e.ID]; {
		case e.ID == "":
			fail(i, []string{"id"}, "missing; give the agent_type clients will send, like \"goose\"")
		case !idPattern.MatchString(e.ID):
			fail(i, []string{"id"}, "%q is not a valid id: want a lowercase letter, then up to 31 of a-z, 0-9, '_' and '-'", e.ID)
		case builtIn[e.ID]:
			fail(i, []string{"id"}, "%q is a built-in runtime; choose another id", e.ID)
		case dup:
			fail(i, []string{"id"}, "%q is already declared by %s #%d (line %d)", e.ID, agentKey, first+1, ps.at(first, "id").line)
		default:
			firstWithID[e.ID] = i
		}

		name := strings.TrimSpace(e.Name)
		if name == "" {
			name = e.ID
		}

		command, problem := expandCommand(e.Command)
		if problem != "" {
			fail(i, []string{"command"}, "%s", problem)
		}

		for j, arg := range e.Args {
			if strings.IndexByte(arg, 0) >= 0 {
				fail(i, []string{"args"}, "element %d holds a NUL byte, which no process argument can carry", j+1)
			}
		}

		var env Env
		if len(e.Env) > 0 {
			env = make(Env, len(e.Env))
		}
		// Sorted, so that errors come in the same order on every run.
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			v := e.Env[k]
			key := []string{"env", k}
			switch {
			case k == "":
				fail(i, key, "empty variable name")
			case strings.ContainsAny(k, "=\x00"):
				fail(i, key, "a variable name cannot hold '=' or a NUL byte")
			case strings.IndexByte(v, 0) >= 0:
				// The value is not echoed: it may be a secret.
				fail(i, key, "the value holds a NUL byte, which no environment variable can carry")
			}
			env[k] = v
		}

		agents = append(agents, ACPAgent{ID: e.ID, Name: name, Command: command, Args: e.Args, Env: env})
	}
	if len(errs) > 0 {
		return nil, Notify{}, errors.Join(errs...)
	}
	return agents, notify, nil
}

// expandCommand checks command and expands a leading "~/". It returns a
// problem in words instead of an error so that the caller adds the position.
func expandCommand(command string) (string, string) {
	switch {
	case command == "":
		return "", "missing; give a name on PATH or an absolute path"
	case strings.IndexByte(command, 0) >= 0:
		return "", "holds a NUL byte"
	case strings.HasPrefix(command, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Sprintf("%q starts with ~/ but the home directory is unknown: %v", command, err)
		}
		return filepath.Join(home, command[2:]), ""
	case strings.HasPrefix(command, "~"):
		return "", fmt.Sprintf("%q: only a leading \"~/\" (your home directory) is expanded", command)
	case strings.ContainsRune(command, filepath.Separator) && !filepath.IsAbs(command):
		// Relative to what? cdevd's working directory is an accident of how
		// it was started, so a relative path is refused rather than guessed.
		return "", fmt.Sprintf("%q is a relative path; give a name on PATH, an absolute path or one starting with ~/", command)
	}
	return command, ""
}

// typeMismatch picks the found type out of go-toml's message, whose wording
// names Go types the user never wrote.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (.+?) into `)

// wantTypes says, per key of the file, what the decoder wanted.
var wantTypes = map[string]string{
	agentKey:  "an array of tables, [[acp_agent]]",
	"id":      "a string",
	"name":    "a string",
	"command": "a string",
	"args":    "an array of strings",
	"env":     "a table of strings, like { NAME = \"value\" }",
	notifyKey: "a table, [notify]",
	"webhook": "an array of tables, [[notify.webhook]]",
	"ntfy":    "an array of tables, [[notify.ntfy]]",
	"kinds":   "an array of strings",
	"url":     "a string",
	"secret":  "a string",
	"server":  "a string",
	"topic":   "a string",
	"token":   "a string",
	"timeout": "a string, like \"10s\"",
	"retries": "an integer",

	"permission_wait": "a string, like \"60s\"",
	"console_url":     "a string",
}

// decodeError rewrites go-toml's errors as "file:line:column: key: what".
func decodeError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]error, 0, len(strict.Errors))
		for _, e := range strict.Errors {
			row, col := e.Position()
			errs = append(errs, fmt.Errorf("%s:%d:%d: unknown key %s%s", path, row, col, keyString(e.Key()), knownKeys(e.Key())))
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	row, col := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	key := de.Key()
	if len(key) == 0 {
		// Not valid TOML: the parser's own words and position.
		return fmt.Errorf("%s:%d:%d: %s", path, row, col, msg)
	}
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		if want, ok := wantTypes[key[len(key)-1]]; ok {
			msg = fmt.Sprintf("want %s, found %s", want, m[1])
		}
	}
	return fmt.Errorf("%s:%d:%d: %s: %s", path, row, col, keyString(key), msg)
}

// knownKeys lists what the file allows where an unknown key was found, so
// that a typo (comand) is fixed without opening the documentation.
func knownKeys(key []string) string {
	switch {
	case len(key) == 1:
		return " (the file declares agents with [[acp_agent]] and notifications with [notify])"
	case len(key) == 2 && key[0] == agentKey:
		return " (an acp_agent has id, name, command, args and env)"
	case len(key) == 2 && key[0] == notifyKey:
		return " ([notify] has permission_wait, console_url, [[notify.webhook]] and [[notify.ntfy]])"
	case len(key) == 3 && key[0] == notifyKey && key[1] == "webhook":
		return " (a webhook has name, url, secret, kinds, timeout and retries)"
	case len(key) == 3 && key[0] == notifyKey && key[1] == "ntfy":
		return " (an ntfy sink has name, server, topic, token, kinds, timeout and retries)"
	}
	return ""
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// keyString writes a key path the way TOML would, quoting parts that need it.
func keyString(key []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		if bareKey.MatchString(k) {
			parts[i] = k
		} else {
			parts[i] = strconv.Quote(k)
		}
	}
	return strings.Join(parts, ".")
}
