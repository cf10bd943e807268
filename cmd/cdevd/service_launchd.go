package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

const launchdLabel = "io.github.cdevd.cdevd"

// launchAgent is a launchd agent in the user's GUI domain: loaded at login
// (RunAtLoad), started again when it fails (KeepAlive unless it exited 0,
// as it does when asked to stop), logging under ~/Library/Logs/cdevd.
type launchAgent struct {
	home string
	uid  int
}

func (l launchAgent) kind() string { return "launchd agent " + launchdLabel }

func (l launchAgent) file() string {
	return filepath.Join(l.home, "Library", "LaunchAgents", launchdLabel+".plist")
}

func (l launchAgent) logDir() string  { return filepath.Join(l.home, "Library", "Logs", "cdevd") }
func (l launchAgent) logFile() string { return filepath.Join(l.logDir(), "cdevd.log") }
func (l launchAgent) logs() string    { return l.logFile() }
func (l launchAgent) domain() string  { return "gui/" + strconv.Itoa(l.uid) }
func (l launchAgent) target() string  { return l.domain() + "/" + launchdLabel }

// prepare makes the log directory: launchd opens the log file but does
// not create the directories above it, and the job would not start.
func (l launchAgent) prepare() error { return os.MkdirAll(l.logDir(), 0o755) }

// render writes the plist. ExitTimeOut is above cdevd's own 8 s shutdown
// bound, so that launchd's SIGKILL never cuts an orderly stop short.
func (l launchAgent) render(spec serviceSpec) ([]byte, error) {
	var b strings.Builder
	str := func(indent, s string) {
		b.WriteString(indent + "<string>")
		_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
		b.WriteString("</string>\n")
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`)
	fmt.Fprintf(&b, "<!-- %s; `cdevd service uninstall` removes it. -->\n", serviceMarker)
	b.WriteString("<plist version=\"1.0\">\n<dict>\n\t<key>Label</key>\n")
	str("\t", launchdLabel)
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	str("\t\t", spec.Exe)
	for _, a := range spec.Args {
		str("\t\t", a)
	}
	b.WriteString("\t</array>\n\t<key>EnvironmentVariables</key>\n\t<dict>\n")
	for _, e := range spec.Env {
		b.WriteString("\t\t<key>")
		_ = xml.EscapeText(&b, []byte(e.Name))
		b.WriteString("</key>\n")
		str("\t\t", e.Value)
	}
	b.WriteString("\t</dict>\n\t<key>WorkingDirectory</key>\n")
	str("\t", spec.Home)
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n" +
		"\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n" +
		"\t<key>ExitTimeOut</key>\n\t<integer>15</integer>\n\t<key>StandardOutPath</key>\n")
	str("\t", l.logFile())
	b.WriteString("\t<key>StandardErrorPath</key>\n")
	str("\t", l.logFile())
	b.WriteString("</dict>\n</plist>\n")
	return []byte(b.String()), nil
}

func (l launchAgent) loaded(sh *shell) (string, bool) {
	out, err := sh.query("launchctl", "print", l.target())
	return out, err == nil
}

func (l launchAgent) activate(sh *shell, changed bool) error {
	_, loaded := l.loaded(sh)
	if loaded && changed {
		// launchd reads a plist when it is bootstrapped, not later.
		if _, err := sh.run("launchctl", "bootout", l.target()); err != nil {
			return err
		}
	}
	if !loaded || changed {
		if _, err := sh.run("launchctl", "bootstrap", l.domain(), l.file()); err != nil {
			if errors.Is(err, errNoTool) {
				fmt.Fprintf(sh.out, "NOT STARTED: launchctl is not on PATH; the agent is written and loads at the next login\n")
				return nil
			}
			return fmt.Errorf("%w (if launchd says the service is disabled: launchctl enable %s)", err, l.target())
		}
	} else if _, err := sh.run("launchctl", "kickstart", l.target()); err != nil {
		// Loaded but stopped (it exited 0): start it; a running one is left alone.
		return err
	}
	fmt.Fprintln(sh.out, "loaded and started: it starts at login and again after a failure")
	return nil
}

func (l launchAgent) deactivate(sh *shell) error {
	if _, loaded := l.loaded(sh); !loaded {
		return nil
	}
	_, err := sh.run("launchctl", "bootout", l.target())
	return err
}

// removed has nothing to do: bootout already unloaded the job.
func (l launchAgent) removed(*shell) {}

var (
	launchdRunning = regexp.MustCompile(`(?m)^\s*state = running\s*$`)
	launchdPID     = regexp.MustCompile(`(?m)^\s*pid = (\d+)\s*$`)
)

func (l launchAgent) state(sh *shell) (enabled, running string) {
	if _, err := exec.LookPath("launchctl"); err != nil {
		return "unknown (launchctl is not on PATH)", "unknown"
	}
	out, loaded := l.loaded(sh)
	disabled, _ := sh.query("launchctl", "print-disabled", l.domain())
	off := regexp.MustCompile(`"` + regexp.QuoteMeta(launchdLabel) + `" => (disabled|true)`).MatchString(disabled)
	switch {
	case off:
		enabled = "no (disabled in launchd: launchctl enable " + l.target() + ")"
	case loaded:
		enabled = "yes (loaded)"
	default:
		enabled = "no (not loaded)"
	}
	running = "no"
	if launchdRunning.MatchString(out) {
		running = "yes"
		if m := launchdPID.FindStringSubmatch(out); m != nil {
			running += " (pid " + m[1] + ")"
		}
	}
	return enabled, running
}
