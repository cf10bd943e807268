package main

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

const systemdUnitName = "cdevd.service"

// systemdUser is a systemd user unit: started by the user's manager at
// login (default.target), restarted on failure, logging to the journal.
type systemdUser struct {
	home   string
	config string // $XDG_CONFIG_HOME, where systemd looks first; may be empty
}

func (s systemdUser) kind() string { return "systemd user unit" }

func (s systemdUser) unitDir() string {
	if s.config != "" && filepath.IsAbs(s.config) {
		return filepath.Join(s.config, "systemd", "user")
	}
	return filepath.Join(s.home, ".config", "systemd", "user")
}

func (s systemdUser) file() string { return filepath.Join(s.unitDir(), systemdUnitName) }

// wantsLink is the link `systemctl --user enable` makes.
func (s systemdUser) wantsLink() string {
	return filepath.Join(s.unitDir(), "default.target.wants", systemdUnitName)
}

func (s systemdUser) logs() string { return "journalctl --user -u " + systemdUnitName }

func (s systemdUser) prepare() error { return nil }

// render writes the unit. KillMode=mixed sends SIGTERM to cdevd alone, so
// that it ends its sessions in order (each CLI's group, gracefully, then
// forced), and SIGKILLs whatever is left in the unit's cgroup afterwards;
// the default would signal every CLI at once, behind cdevd's back.
// TimeoutStopSec is above cdevd's own 8 s shutdown bound.
func (s systemdUser) render(spec serviceSpec) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s; `cdevd service uninstall` removes it.\n", serviceMarker)
	b.WriteString("[Unit]\nDescription=cdevd: remote clients drive the coding-agent CLIs on this machine\n" +
		"Documentation=https://github.com/cdevd/cdevd\n\n[Service]\nType=simple\n")
	words := []string{systemdQuote(spec.Exe, true)}
	for _, a := range spec.Args {
		words = append(words, systemdQuote(a, true))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(words, " "))
	for _, e := range spec.Env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(e.Name+"="+e.Value, false))
	}
	b.WriteString("Restart=on-failure\nRestartSec=2s\nKillMode=mixed\nTimeoutStopSec=15s\n\n" +
		"[Install]\nWantedBy=default.target\n")
	return []byte(b.String()), nil
}

// systemdQuote makes s one word of a unit file: % starts a specifier and,
// in ExecStart, $ an environment variable; both are doubled. Anything with
// blanks, quotes, backslashes or ; is double-quoted with C escapes.
func systemdQuote(s string, dollar bool) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if dollar {
		s = strings.ReplaceAll(s, "$", "$$")
	}
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// noUserManager explains why systemctl --user could not be used.
func noUserManager(err error) string {
	if errors.Is(err, errNoTool) {
		return "systemctl is not on PATH"
	}
	return "no user systemd to talk to (" + err.Error() + "); common in containers, and over ssh without a login session"
}

func (s systemdUser) activate(sh *shell, changed bool) error {
	if _, err := sh.run("systemctl", "--user", "daemon-reload"); err != nil {
		fmt.Fprintf(sh.out, "NOT STARTED: %s.\nThe unit is written; where a user systemd runs, start it with:\n"+
			"  systemctl --user daemon-reload && systemctl --user enable --now %s\n", noUserManager(err), systemdUnitName)
		return nil
	}
	if _, err := sh.run("systemctl", "--user", "enable", systemdUnitName); err != nil {
		return err
	}
	// restart picks up a changed unit; start leaves a running one alone.
	verb := "start"
	if changed {
		verb = "restart"
	}
	if _, err := sh.run("systemctl", "--user", verb, systemdUnitName); err != nil {
		return err
	}
	fmt.Fprintf(sh.out, "enabled and started: it starts at login and again after a failure\n")
	if !lingering() {
		fmt.Fprintln(sh.out, "note: a user service stops when your last session ends; to keep it running: loginctl enable-linger")
	}
	return nil
}

func (s systemdUser) deactivate(sh *shell) error {
	if _, err := sh.run("systemctl", "--user", "disable", "--now", systemdUnitName); err != nil {
		fmt.Fprintf(sh.out, "could not stop it: %s\n", noUserManager(err))
	}
	// Without a reachable manager, disable could not remove the link that
	// enable made; it is ours only if it points at our unit.
	if dst, err := os.Readlink(s.wantsLink()); err == nil && dst == s.file() {
		if err := os.Remove(s.wantsLink()); err != nil {
			return err
		}
	}
	return nil
}

// removed makes the manager drop the unit (and its failed state).
func (s systemdUser) removed(sh *shell) {
	if _, err := sh.run("systemctl", "--user", "daemon-reload"); err != nil {
		return
	}
	// Fails when the unit never failed: nothing to reset.
	_, _ = sh.query("systemctl", "--user", "reset-failed", systemdUnitName)
}

func (s systemdUser) state(sh *shell) (enabled, running string) {
	// is-enabled and is-active print their answer and exit non-zero for a
	// negative one, so the output counts, not the exit status.
	en, _ := sh.query("systemctl", "--user", "is-enabled", systemdUnitName)
	act, err := sh.query("systemctl", "--user", "is-active", systemdUnitName)
	if act == "" { // is-active needs the manager; is-enabled reads files
		_, linked := os.Lstat(s.wantsLink())
		return fmt.Sprintf("%s (from the files)", yesNo(linked == nil)), "unknown: " + noUserManager(err)
	}
	return fmt.Sprintf("%s (%s)", yesNo(en == "enabled"), en), fmt.Sprintf("%s (%s)", yesNo(act == "active" || act == "reloading"), act)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// lingering reports whether the user's manager outlives their sessions.
func lingering() bool {
	u, err := user.Current()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join("/var/lib/systemd/linger", u.Username))
	return err == nil
}
