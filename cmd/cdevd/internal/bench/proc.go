package bench

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is a child process of the bench: a cdevd serve or a bare echo
// server, each the cdevd binary itself in another role.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser // closing it tells an echo server to quit
	term  bool           // stopped with SIGTERM (cdevd serve), not by closing stdin
	owner *Bench
	url   string
	addr  string // host:port
	token string
}

// startServe runs `cdevd serve` on a free loopback port with the given
// homes, the scripted runtime registered (--bench-runtime), and waits until
// it prints its URL.
func (b *Bench) startServe(home, cdevdHome string) (*proc, error) {
	for _, d := range []string{home, cdevdHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := b.childEnv("HOME="+home, "CDEVD_HOME="+cdevdHome, "CDEVD_TOKEN="+b.token)
	for k, v := range b.opts.CLIs {
		env = append(env, k+"="+v)
	}
	p, err := b.start(env, filepath.Join(b.root, "serve.log"), "serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--bench-runtime")
	if err != nil {
		return nil, err
	}
	p.token, p.term = b.token, true
	return p, nil
}

// startEcho runs the bare gorilla/websocket echo server (`cdevd bench-echo`).
func (b *Bench) startEcho() (*proc, error) {
	return b.start(b.childEnv(), filepath.Join(b.root, "echo.log"), "bench-echo")
}

// childEnv is the bench's environment without what would change a child's
// role (its homes, its token, and the variables each registered runtime
// declares for its CLI and the CLI's home), plus extra.
func (b *Bench) childEnv(extra ...string) []string {
	// CDEVD_SCRIPTED_CLI would make a child cdevd the scripted runtime's
	// fake CLI rather than a daemon.
	drop := map[string]bool{"HOME": true, "CDEVD_HOME": true, "CDEVD_TOKEN": true, "CDEVD_SCRIPTED_CLI": true}
	for _, info := range b.opts.Runtimes {
		drop[info.CLI.BinEnv], drop[info.CLI.HomeEnv] = true, true
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// start runs the binary with args and reads the URL it prints: the first
// ws:// word of its stdout.
func (b *Bench) start(env []string, logPath string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(b.opts.Self, args...)
	cmd.Env = env
	cmd.Stderr = logf
	// A child dies with the bench, whatever happens to the bench.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, owner: b}
	if !b.track(p) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, errors.New("interrupted")
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		for _, w := range strings.Fields(sc.Text()) {
			if strings.HasPrefix(w, "ws://") {
				p.url = w
			}
		}
		if p.url != "" {
			break
		}
	}
	if p.url == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.untrack(p)
		return nil, fmt.Errorf("%s %s did not start (see %s)", b.opts.Self, args[0], logPath)
	}
	p.addr = strings.TrimPrefix(strings.TrimSuffix(p.url, "/ws"), "ws://")
	p.addr, _, _ = strings.Cut(p.addr, "/")
	// The rest of stdout is not read; drain it so the child never blocks.
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p, nil
}

// stop ends the child (SIGTERM or the end of its stdin, then SIGKILL after
// 10 s) and waits for it.
func (p *proc) stop() error {
	if p == nil {
		return nil
	}
	defer p.owner.untrack(p)
	_ = p.stdin.Close()
	if p.term {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not stop within 10 s; killed", p.cmd.Args[1])
	}
}

// track records a running child, so that an interrupted run can end it;
// false: the run is interrupted.
func (b *Bench) track(p *proc) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.interrupted {
		return false
	}
	b.live[p] = struct{}{}
	return true
}

func (b *Bench) untrack(p *proc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.live, p)
}

// interrupt kills every child: the client's reads and writes then fail at
// once, and the run ends through its usual clean-up.
func (b *Bench) interrupt() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.interrupted = true
	for p := range b.live {
		_ = p.cmd.Process.Kill()
	}
}

// rss is the child's resident set size in bytes, from /proc.
func (p *proc) rss() (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.Fields(v + " 0")[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// newToken is a CDEVD_TOKEN for the served daemons.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
