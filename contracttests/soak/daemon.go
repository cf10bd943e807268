package main

// The daemon role (cdevd with the scripted runtime, in a process of its
// own) and the driver's handle on that process.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/sessions"
)

// hello is what the daemon role prints on stdout once it listens.
type hello struct {
	URL   string `json:"url"`
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// serve is the daemon role: cdevd with the scripted runtime, until SIGTERM
// or the end of stdin (the driver is gone).
func serve(args []string) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	home := fs.String("home", "", "cdevd home")
	maxProcs := fs.Int("max-processes", 8, "live processes per runtime")
	replayAge := fs.Duration("replay-age", 0, "sessions.Config.ReplayAge (0: the default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := zap.NewProduction()
	if err != nil {
		return err
	}
	log = log.WithOptions(zap.IncreaseLevel(zap.WarnLevel))
	d, err := daemon.Start(daemon.Config{Home: *home, Addr: "127.0.0.1:0", MaxProcesses: *maxProcs, Logger: log,
		Sessions: sessions.Config{ReplayAge: *replayAge},
		Adapters: []runtimes.Adapter{scripted.New(scripted.Config{Bin: self, StateDir: filepath.Join(*home, "scripted"), Logger: log})}})
	if err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(hello{URL: d.URL(), Addr: d.Addr(), Token: d.Token()}); err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)
	profiles := 0
	stdin := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdin)
	}()
loop:
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGUSR1 {
				break loop
			}
			// A measuring aid: what the heap no longer uses goes back to
			// the OS now rather than over the next minutes.
			debug.FreeOSMemory()
			profiles++
			if err := writeHeapProfile(filepath.Join(*home, fmt.Sprintf("heap-%d.pprof", profiles))); err != nil {
				return err
			}
			fmt.Println("freed")
		case <-stdin:
			break loop
		case err := <-d.Done():
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Shutdown(ctx)
}

// writeHeapProfile records what the heap still holds, for a reader of a
// soak that did not return to its baseline.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// daemonProc is the cdevd under test.
type daemonProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	hello
}

func startDaemon(ctx context.Context, root string, maxProcs int, replayAge time.Duration) (*daemonProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(root, "daemon.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, self, "daemon", "-home", home, "-max-processes", strconv.Itoa(maxProcs),
		"-replay-age", replayAge.String())
	cmd.Stderr = logf
	// It dies with the driver, whatever happens to the driver.
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
	p := &daemonProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	if !p.out.Scan() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the daemon did not start (see %s)", logf.Name())
	}
	if err := json.Unmarshal(p.out.Bytes(), &p.hello); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("daemon said %q: %w", p.out.Text(), err)
	}
	return p, nil
}

// freeOSMemory asks the daemon role to return its unused heap to the OS
// and waits until it has.
func (p *daemonProc) freeOSMemory() error {
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return err
	}
	if !p.out.Scan() || p.out.Text() != "freed" {
		return errors.New("the daemon did not confirm freeing memory")
	}
	return nil
}

// stop ends the daemon with SIGTERM and waits.
func (p *daemonProc) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	return p.cmd.Wait()
}
