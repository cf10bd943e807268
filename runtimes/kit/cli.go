package kit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// DetectTimeout bounds a CLI's --version when the caller's ctx has no
// deadline. Generous: a Node CLI's --version takes 2-5 s on a busy 2-core
// machine and was seen past 10 s there, and a CLI killed for being slow
// would be reported disabled, which it is not.
const DetectTimeout = 30 * time.Second

// Env is the environment a CLI runs with unless configured otherwise:
// the daemon's own, without CDEVD_TOKEN. The agent runs arbitrary
// commands: it must not find the token that drives the daemon.
func Env() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "CDEVD_TOKEN=")
	})
}

// LookupEnv is the last value of key in env, as exec would pass it.
func LookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// Home is the home directory of a CLI run with env: its HOME, else the
// daemon user's.
func Home(env []string) string {
	if home := LookupEnv(env, "HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// Bin is the CLI a runtime runs: bin when set (the adapter's Config), else
// binVar in env (CLAUDE_BIN, …), else name, looked up on cdevd's PATH at
// each start. A relative path (bin/claude, node_modules/.bin/claude) is
// made absolute here, once, against cdevd's working directory: run as
// given, it would be resolved against the session's directory, so a
// repository that ships bin/claude would run its own at the first session
// started there. Should the working directory be gone, the path stays
// relative, and DetectVersion and proc.Start refuse it.
func Bin(bin string, env []string, binVar, name string) string {
	if bin == "" {
		bin = LookupEnv(env, binVar)
	}
	if bin == "" {
		return name
	}
	if strings.ContainsRune(bin, filepath.Separator) && !filepath.IsAbs(bin) {
		if abs, err := filepath.Abs(bin); err == nil {
			return abs
		}
	}
	return bin
}

// DetectVersion finds the CLI name at bin and runs `bin --version` with
// env; the version is the first match of version in its first line. binVar
// names the variable that sets bin, for the reason given when it is not
// found.
func DetectVersion(ctx context.Context, name, bin, binVar string, env []string, version *regexp.Regexp) runtimes.Availability {
	if strings.ContainsRune(bin, filepath.Separator) && !filepath.IsAbs(bin) {
		return runtimes.Availability{Reason: fmt.Sprintf("%s=%s is a relative path, which would be run from the session's directory, "+
			"and cdevd could not make it absolute; give an absolute path", binVar, bin)}
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return runtimes.Availability{Reason: fmt.Sprintf("%s not found on PATH (set %s)", name, binVar)}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DetectTimeout)
		defer cancel()
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = proc.AbsolutePATH(env) // as the sessions will run it
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child left holding the pipes (a Node shim's native binary) must
	// not keep Detect waiting.
	cmd.WaitDelay = time.Second
	av := runtimes.Availability{Installed: true, Path: path}
	if err := cmd.Run(); err != nil {
		av.Reason = strings.TrimSpace(fmt.Sprintf("%s --version: %v: %s", path, err, firstLine(stderr.String())))
		return av
	}
	av.Version = version.FindString(firstLine(stdout.String()))
	if av.Version == "" {
		av.Reason = fmt.Sprintf("%s --version printed %q, not a version", path, firstLine(stdout.String()))
	}
	return av
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
