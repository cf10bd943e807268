package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os/exec"
	"slices"
	"strings"

	"go.uber.org/zap/zapcore"
)

// Environ returns base (typically os.Environ()) with the agent's env added:
// base entries the agent sets are dropped, and the agent's entries follow,
// sorted by name, so the child sees each variable once and the result does
// not depend on map order.
func (a ACPAgent) Environ(base []string) []string {
	out := make([]string, 0, len(base)+len(a.Env))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := a.Env[name]; set {
			continue
		}
		out = append(out, kv)
	}
	for _, name := range slices.Sorted(maps.Keys(a.Env)) {
		out = append(out, name+"="+a.Env[name])
	}
	return out
}

// LookPath finds the agent's command as exec.Command would (on cdevd's
// PATH, not on a PATH set in env) and, when it cannot, says why in words
// fit for the registry's disabled reason.
func (a ACPAgent) LookPath() (string, error) {
	path, err := exec.LookPath(a.Command)
	if err == nil {
		return path, nil
	}
	// exec.Error and fs.PathError repeat the path; the reason is inside.
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("command %q not found on PATH", a.Command)
	}
	return "", fmt.Errorf("command %q: %w", a.Command, err)
}

// String describes the agent with env values redacted, for logs and errors.
func (a ACPAgent) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %q", a.ID, a.Name, append([]string{a.Command}, a.Args...))
	if len(a.Env) > 0 {
		b.WriteString(" env ")
		b.WriteString(a.Env.String())
	}
	return b.String()
}

// MarshalLogObject lets zap log the agent with env values redacted.
func (a ACPAgent) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("id", a.ID)
	enc.AddString("name", a.Name)
	enc.AddString("command", a.Command)
	if err := enc.AddArray("args", stringArray(a.Args)); err != nil {
		return err
	}
	return enc.AddObject("env", a.Env)
}

type stringArray []string

func (s stringArray) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, v := range s {
		enc.AppendString(v)
	}
	return nil
}

// Env is an agent's environment variables, name to value. The values may be
// secrets (API keys), so every way of printing, logging or serialising an
// Env shows the names only.
type Env map[string]string

// redacted stands in for an env value wherever one would be shown.
const redacted = "REDACTED"

// String lists the names with their values redacted, sorted.
func (e Env) String() string {
	parts := make([]string, 0, len(e))
	for _, name := range slices.Sorted(maps.Keys(e)) {
		parts = append(parts, name+"="+redacted)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// GoString keeps %#v from printing the map's values.
func (e Env) GoString() string { return "config.Env" + e.String() }

// MarshalLogObject lets zap log the names with their values redacted.
func (e Env) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	for _, name := range slices.Sorted(maps.Keys(e)) {
		enc.AddString(name, redacted)
	}
	return nil
}

// MarshalJSON redacts the values too: zap.Reflect and any JSON output of a
// struct holding an Env go through it.
func (e Env) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	shown := make(map[string]string, len(e))
	for name := range e {
		shown[name] = redacted
	}
	return json.Marshal(shown)
}
