package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: tty is the terminal end a program writes
// to, pty the end that reads what it wrote.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pty.Close() })
	if err := unix.IoctlSetPointerInt(int(pty.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(pty.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

// The real check: a pipe and a file are not terminals, a pseudo-terminal is.
func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "cdevd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]io.Writer{"pipe": w, "file": f, "buffer": &bytes.Buffer{}} {
		if isTerminal(w) {
			t.Errorf("a %s is taken for a terminal", name)
		}
	}
	if _, tty := openPTY(t); !isTerminal(tty) {
		t.Error("a pseudo-terminal is not taken for one")
	}
}

// TestServeOnATerminal runs serve with its stdout a terminal, as when a
// user starts it by hand: there, and only there, the console URL carries
// the token (TestServeAndSIGTERM has stdout a pipe).
func TestServeOnATerminal(t *testing.T) {
	pty, tty := openPTY(t)
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--log-format", "json")
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN="+envToken,
		"CLAUDE_BIN=/nonexistent/claude", "CODEX_BIN=/nonexistent/codex", "GEMINI_BIN=/nonexistent/gemini")
	cmd.Stdout = tty
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // serve has its own; the reads below end when it exits
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("serve: %v; log:\n%s", err, stderr.String())
		}
		if strings.Contains(stderr.String(), envToken) {
			t.Error("the token appeared in the log")
		}
	}()

	console := regexp.MustCompile(`^console: open (\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pty)
		for sc.Scan() {
			if m := console.FindStringSubmatch(strings.TrimSuffix(sc.Text(), "\r")); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		// A one-time pairing link, never the owner's token.
		if !strings.Contains(u, "/#pair=cdev_p_") || strings.Contains(u, envToken) {
			t.Fatalf("on a terminal the console URL should carry a pairing token: %s", u)
		}
	case err := <-exited:
		exited <- err
		t.Fatalf("serve exited: %v; log:\n%s", err, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("no console line on the terminal; log:\n%s", stderr.String())
	}
}
