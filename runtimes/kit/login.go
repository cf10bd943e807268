package kit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// LoginReportTTL is how long what a turn reported stands at most: after
// it, the CLI's own word (its status command, its credential files) is
// taken again, and a turn that fails again reports again. It bounds a
// report that nothing else ends (credentials in a keychain, whose change
// no file shows).
const LoginReportTTL = 10 * time.Minute

// CodeAuthRequired is the TurnFailed code of a turn the CLI could not run
// for lack of login (an API's 401, "please log in"). A session whose sink
// Login.Watch wraps reports it at once, before the event goes on.
const CodeAuthRequired = runtimes.CodeAuthRequired

// LoginCheck is what a runtime's own means said of its login.
type LoginCheck struct {
	State runtimes.Login
	// Reason is why the CLI cannot answer and how to fix it; set with
	// LoggedOut only.
	Reason string
	// Changed is the newest modification time of the credential files the
	// check read (zero when none): logging in again rewrites them, which
	// ends what a turn reported (Login.Checked).
	Changed time.Time
}

// Unknown is a check that could not tell.
func Unknown() LoginCheck { return LoginCheck{State: runtimes.LoginUnknown} }

// DetectLogin is DetectVersion, then, when the CLI answered it, check (run
// with the CLI's path); l, when not nil, is told what the check found. A
// CLI that cannot answer is not usable: its Reason is the check's.
func DetectLogin(ctx context.Context, av runtimes.Availability, check func(ctx context.Context, path string) LoginCheck, l *Login) runtimes.Availability {
	if !av.Usable() || check == nil {
		return av
	}
	c := check(ctx, av.Path)
	if c.State == "" {
		c.State = runtimes.LoginUnknown
	}
	av.Login = c.State
	if c.State == runtimes.LoggedOut {
		av.Reason = c.Reason
	}
	if l != nil {
		l.Checked(c)
	}
	return av
}

// Status runs path with args and env (as the sessions would run it),
// bounded by ctx (DetectTimeout when ctx has none), and returns its exit
// code, stdout and stderr. err is set only when it could not run or did
// not end: a non-zero exit is an answer.
func Status(ctx context.Context, path string, env []string, args ...string) (code int, stdout, stderr []byte, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DetectTimeout)
		defer cancel()
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = proc.AbsolutePATH(env)
	cmd.Stdin = nil // no terminal: a CLI must not wait for input
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.Bytes(), errOut.Bytes(), nil
	case errors.As(err, &exit) && exit.Exited() && ctx.Err() == nil:
		return exit.ExitCode(), out.Bytes(), errOut.Bytes(), nil
	}
	return -1, out.Bytes(), errOut.Bytes(), fmt.Errorf("%s %s: %w: %s", path, strings.Join(args, " "), err, firstLine(errOut.String()))
}

// Newest is the newest modification time of the files that exist among
// paths, and whether any does.
func Newest(paths ...string) (time.Time, bool) {
	var t time.Time
	found := false
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			found = true
			if fi.ModTime().After(t) {
				t = fi.ModTime()
			}
		}
	}
	return t, found
}

// DotEnv is the value of key in a KEY=VALUE file (the .env files some CLIs
// read), "" when the file or the key is missing.
func DotEnv(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	v := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "export "))
		k, val, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			v = strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	return v
}

// Login is what the turns of one runtime found of its login: a turn that
// failed for lack of it makes the runtime unusable at once (the registry
// reads Unauthenticated at every status), without waiting for the next
// detection, whose credential files still say "logged in" when a token
// has expired or been revoked. It ends when a turn completes, or when a
// detection finds the credential files rewritten since (the user logged
// in again), or after LoginReportTTL. Its methods are safe for concurrent use; the zero value is
// not usable, use NewLogin.
type Login struct {
	fix string

	mu     sync.Mutex
	reason string
	at     time.Time
	now    func() time.Time
}

// NewLogin returns a Login whose reports end with fix, how to log in
// ("run `claude` once in a terminal and log in").
func NewLogin(fix string) *Login { return &Login{fix: fix, now: time.Now} }

// ReportUnauthenticated records that a turn failed for lack of login;
// detail is what the CLI said. From then on the runtime is disabled, its
// reason this detail and the fix, until ReportAuthenticated, a detection
// that finds the credentials rewritten, or LoginReportTTL. Safe on a nil
// Login.
func (l *Login) ReportUnauthenticated(detail string) {
	if l == nil {
		return
	}
	reason := "a turn failed for lack of login"
	if detail = strings.TrimSpace(detail); detail != "" {
		reason += " (" + detail + ")"
	}
	if l.fix != "" {
		reason += ": " + l.fix
	}
	l.mu.Lock()
	l.reason, l.at = reason, l.now()
	l.mu.Unlock()
}

// ReportAuthenticated records that the CLI answered a turn: it ends an
// earlier ReportUnauthenticated. Safe on a nil Login.
func (l *Login) ReportAuthenticated() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.reason = ""
	l.mu.Unlock()
}

// Unauthenticated is the reason a turn reported, if one stands.
func (l *Login) Unauthenticated() (reason string, ok bool) {
	if l == nil {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reason != "" && l.now().Sub(l.at) >= LoginReportTTL {
		l.reason = ""
	}
	return l.reason, l.reason != ""
}

// Checked is told what a detection found: credential files changed after
// a turn's report end it (the user logged in again).
func (l *Login) Checked(c LoginCheck) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reason != "" && c.State == runtimes.LoggedIn && c.Changed.After(l.at) {
		l.reason = ""
	}
}

// Watch wraps a session's sink: a TurnFailed with CodeAuthRequired reports
// the runtime unauthenticated before the event goes on (so that a client
// told of the failure already finds the registry saying so), and a
// TurnCompleted reports it authenticated.
func (l *Login) Watch(sink runtimes.Sink) runtimes.Sink {
	if l == nil || sink == nil {
		return sink
	}
	return func(ev runtimes.Event) {
		switch e := ev.(type) {
		case runtimes.TurnFailed:
			if e.Code == CodeAuthRequired {
				l.ReportUnauthenticated(e.Message)
			}
		case runtimes.TurnCompleted:
			l.ReportAuthenticated()
		}
		sink(ev)
	}
}
