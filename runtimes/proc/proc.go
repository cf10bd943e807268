// Package proc runs an agent CLI as a child process the way every adapter
// needs it: in its own process group (so a signal reaches the tools it
// spawned), with nothing it started at any depth outliving the session or
// the daemon (on Linux, through a per-session supervisor: see
// internal/supervisor), with line-oriented stdout, a stall timer that only
// runs while a turn does, and a stop that is graceful first, forced after a
// grace period, idempotent and waits for its goroutines. It runs in the
// session's directory, a workspace cdevd does not control, so nothing is
// looked up there: a relative Path is refused and the PATH it gets holds
// only absolute directories.
package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// DefaultMaxLine bounds one stdout line. A longer line is dropped (reported
// through OnOversize) rather than buffered without limit.
const DefaultMaxLine = 8 << 20

// DefaultKillGrace is how long Stop waits after SIGTERM before SIGKILL.
const DefaultKillGrace = 3 * time.Second

// DefaultWaitDelay is how long output may stay open after the process group
// is gone (see Config.WaitDelay).
const DefaultWaitDelay = 2 * time.Second

// ErrExited is returned by Write once the process has ended.
var ErrExited = errors.New("process has exited")

// Clock lets tests drive the stall timer.
type Clock interface {
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the runner uses.
type Timer interface{ Stop() bool }

type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Config describes the process to run and where its output goes.
type Config struct {
	// Path is an absolute path, or a name looked up on the daemon's PATH
	// (never in a relative directory: exec.ErrDot). A relative path is
	// refused.
	Path string
	Args []string
	Dir  string
	// Env is the whole environment; nil means the daemon's own. Either way
	// the process gets only the absolute directories of its PATH (see
	// AbsolutePATH).
	Env []string

	// StallTimeout fires OnStall when no output arrived for this long while
	// the stall timer is armed. Zero disables it.
	StallTimeout time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL (DefaultKillGrace).
	KillGrace time.Duration
	// WaitDelay bounds how long, once the leader exited and its group was
	// killed, the runner waits for stdout and stderr to reach EOF before
	// closing them itself (DefaultWaitDelay). A process the supervisor
	// cannot end can hold them open forever: one outside the tree that got
	// them passed, or, without a supervisor (not Linux), a descendant that
	// left the group (setsid). Like exec.Cmd.WaitDelay, this keeps Done
	// and Stop from waiting on it. Output still unread then is lost.
	WaitDelay time.Duration
	// MaxLine bounds a stdout line (DefaultMaxLine).
	MaxLine int

	// OnLine gets each stdout line without its newline, in order, on one
	// goroutine. The slice is only valid during the call.
	OnLine func(line []byte)
	// OnStderr gets each stderr line (optional; logged at debug otherwise).
	OnStderr func(line []byte)
	// OnOversize reports a dropped stdout line longer than MaxLine.
	OnOversize func(size int)
	// OnStall is called (once per arming) when the stall timer fires.
	OnStall func()

	Clock  Clock
	Logger *zap.Logger
}

// Process is a running child.
type Process struct {
	cfg   Config
	cmd   *exec.Cmd
	sup   *supervision
	log   *zap.Logger
	stdin io.WriteCloser

	writeMu sync.Mutex // one whole line per Write

	stallMu    sync.Mutex
	stallArmed bool
	stallEnded bool // the process is gone: the timer must not be armed again
	stallTimer Timer

	stopOnce sync.Once
	exited   chan struct{} // closed when the leader was reaped
	done     chan struct{} // closed when the process exited and readers finished
	exitCode int
}

// Start spawns the process. Its stdout and stderr are read until EOF.
func Start(cfg Config) (*Process, error) {
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.WaitDelay <= 0 {
		cfg.WaitDelay = DefaultWaitDelay
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if relativePath(cfg.Path) {
		// exec would resolve it against Dir, the session's directory: a
		// workspace that ships that file would run it.
		return nil, fmt.Errorf("start %s: a relative path, which would be run from the session's directory; give an absolute one", cfg.Path)
	}
	cmd, sup, err := command(cfg)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Path, err)
	}
	cmd.Dir = cfg.Dir
	cmd.Env = AbsolutePATH(cfg.Env)

	// Plain os.Pipes rather than StdoutPipe, whose read ends Wait closes as
	// soon as the leader exits, possibly under our readers before they
	// drained its last output. Here Wait returns then, and the goroutine
	// below decides when to close the read ends (see Config.WaitDelay).
	outR, outW, errR, errW, stdin, err := pipes(cmd)
	if err != nil {
		sup.abort()
		return nil, err
	}
	closeAll := func() {
		for _, c := range []io.Closer{outR, outW, errR, errW, stdin} {
			c.Close()
		}
		sup.abort()
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("start %s: %w", cfg.Path, err)
	}
	outW.Close()
	errW.Close()
	if err := sup.started(cfg.Path); err != nil {
		_ = cmd.Wait() // the supervisor could not start the CLI and exited
		closeAll()
		return nil, fmt.Errorf("start %s: %w", cfg.Path, err)
	}

	p := &Process{cfg: cfg, cmd: cmd, sup: sup, stdin: stdin, exited: make(chan struct{}), done: make(chan struct{}),
		log: cfg.Logger.With(zap.Int("pid", cmd.Process.Pid))}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); p.readStdout(outR) }()
	go func() { defer readers.Done(); p.readStderr(errR) }()
	go func() {
		_ = cmd.Wait() // the exit status is read from ProcessState
		close(p.exited)
		sup.release()
		// The leader is gone; end whatever it left in its group so that the
		// pipes reach EOF and nothing outlives the session. (A supervisor
		// leaves nothing; this is for a supervisor killed from outside, and
		// for systems without one.)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		p.awaitReaders(&readers, outR, errR)
		p.endStall()
		p.exitCode = exitCode(cmd.ProcessState)
		close(p.done)
	}()
	return p, nil
}

// pipes makes cmd's stdin, stdout and stderr pipes; on error nothing stays
// open.
func pipes(cmd *exec.Cmd) (outR, outW, errR, errW *os.File, stdin io.WriteCloser, err error) {
	if outR, outW, err = os.Pipe(); err != nil {
		return
	}
	if errR, errW, err = os.Pipe(); err == nil {
		if stdin, err = cmd.StdinPipe(); err == nil {
			return
		}
		errR.Close()
		errW.Close()
	}
	outR.Close()
	outW.Close()
	return
}

// awaitReaders lets the readers drain the pipes until EOF, or for at most
// WaitDelay: a process outside the tree may keep the write ends open.
// Closing the read ends then ends the readers' blocked reads.
func (p *Process) awaitReaders(readers *sync.WaitGroup, outR, errR *os.File) {
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	delay := time.NewTimer(p.cfg.WaitDelay)
	defer delay.Stop()
	select {
	case <-drained:
	case <-delay.C:
		p.log.Warn("output still open after the process group ended; a process outside it holds it",
			zap.Duration("wait_delay", p.cfg.WaitDelay))
	}
	outR.Close()
	errR.Close()
	<-drained
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode() // -1 when killed by a signal
}

func (p *Process) readStdout(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	oversize := 0 // >0 while discarding the rest of a too-long line
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			p.touch()
		}
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		switch {
		case oversize > 0:
			oversize += len(chunk)
		case len(buf)+len(chunk) > p.cfg.MaxLine:
			oversize = len(buf) + len(chunk)
			buf = buf[:0]
		default:
			buf = append(buf, chunk...)
		}
		if complete || (err != nil && err != bufio.ErrBufferFull && (len(buf) > 0 || oversize > 0)) {
			if oversize > 0 {
				if p.cfg.OnOversize != nil {
					p.cfg.OnOversize(oversize)
				}
				oversize = 0
			} else if p.cfg.OnLine != nil {
				p.cfg.OnLine(bytes.TrimSuffix(buf, []byte("\r")))
			}
			buf = buf[:0]
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (p *Process) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.touch()
		if p.cfg.OnStderr != nil {
			p.cfg.OnStderr(sc.Bytes())
		} else {
			p.log.Debug("cli stderr", zap.ByteString("line", sc.Bytes()))
		}
	}
	// A stderr line over 1 MiB stops the scanner; keep draining so the
	// child never blocks on a full pipe.
	_, _ = io.Copy(io.Discard, r)
}

// Pid is the id of the process cdevd started, which is also its process
// group id. On Linux that is the session's supervisor, not the CLI: the CLI
// is its child, in the same group.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process exited and all its output was delivered
// (or WaitDelay passed with the output still held open).
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is valid after Done: the exit status, or -1 if killed by a signal.
func (p *Process) ExitCode() int { <-p.done; return p.exitCode }

// Write writes b to stdin as one unit (callers pass whole lines).
func (p *Process) Write(b []byte) error {
	select {
	case <-p.done:
		return ErrExited
	default:
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.stdin.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrExited, err)
	}
	return nil
}

// CloseStdin closes the child's stdin (many CLIs exit on EOF). It does not
// wait for a Write blocked on a child that stopped reading: closing the pipe
// ends that Write with an error.
func (p *Process) CloseStdin() error {
	return p.stdin.Close()
}

// Signal sends sig to the whole process group (the CLI and, on Linux, its
// supervisor, which lets the CLI decide on SIGTERM, SIGINT and SIGHUP).
// SIGKILL through Signal ends the supervisor at once too, so descendants
// that left the group survive it; Stop ends them all.
func (p *Process) Signal(sig syscall.Signal) error {
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// ArmStall starts the stall timer; any output restarts it. Adapters arm it
// when a turn starts and disarm it when the turn ends or waits for the user.
func (p *Process) ArmStall() {
	if p.cfg.StallTimeout <= 0 {
		return
	}
	p.stallMu.Lock()
	defer p.stallMu.Unlock()
	if p.stallEnded {
		return
	}
	p.stallArmed = true
	p.resetLocked()
}

// DisarmStall stops the stall timer.
func (p *Process) DisarmStall() {
	p.stallMu.Lock()
	defer p.stallMu.Unlock()
	p.disarmLocked()
}

// endStall disarms the timer for good once the process has exited.
func (p *Process) endStall() {
	p.stallMu.Lock()
	defer p.stallMu.Unlock()
	p.stallEnded = true
	p.disarmLocked()
}

func (p *Process) disarmLocked() {
	p.stallArmed = false
	if p.stallTimer != nil {
		p.stallTimer.Stop()
		p.stallTimer = nil
	}
}

func (p *Process) touch() {
	p.stallMu.Lock()
	defer p.stallMu.Unlock()
	if p.stallArmed {
		p.resetLocked()
	}
}

func (p *Process) resetLocked() {
	if p.stallTimer != nil {
		p.stallTimer.Stop()
	}
	var t Timer
	t = p.cfg.Clock.AfterFunc(p.cfg.StallTimeout, func() {
		p.stallMu.Lock()
		fire := p.stallArmed && p.stallTimer == t
		if fire {
			p.stallArmed = false
			p.stallTimer = nil
		}
		p.stallMu.Unlock()
		if fire && p.cfg.OnStall != nil {
			p.cfg.OnStall()
		}
	})
	p.stallTimer = t
}

// supervisorGrace bounds how long a forced stop waits for the supervisor to
// end the tree before it kills the process group itself. The sweep takes
// milliseconds; this only matters if the supervisor cannot run (stopped).
const supervisorGrace = 2 * time.Second

// kill ends the whole tree: closing the control pipe has the supervisor
// SIGKILL every descendant, including those that left the process group,
// which a SIGKILL of the group (the supervisor with it) would orphan. The
// group is killed too, at once where there is no supervisor.
func (p *Process) kill() {
	p.sup.release()
	if p.sup.supervised() {
		t := time.NewTimer(supervisorGrace)
		defer t.Stop()
		select {
		case <-p.exited:
			return
		case <-t.C:
			p.log.Warn("the supervisor did not end the tree in time; killing its group")
		}
	}
	_ = p.Signal(syscall.SIGKILL)
}

// Stop ends the process tree: stdin is closed and SIGTERM sent to the
// group, then, after KillGrace or when ctx ends, whichever is first, every
// descendant is SIGKILLed, in the group or not. Once the CLI has exited the
// supervisor kills whatever it left anyway. Stop waits until the process
// exited and its output was delivered, or WaitDelay more when something
// outside the tree holds the output open. Safe to call more
// than once and concurrently.
func (p *Process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		_ = p.CloseStdin()
		_ = p.Signal(syscall.SIGTERM)
		grace := time.NewTimer(p.cfg.KillGrace)
		defer grace.Stop()
		select {
		case <-p.done:
			return
		case <-grace.C:
		case <-ctx.Done():
		}
		p.log.Debug("process ignored SIGTERM; killing its tree")
		p.kill()
	})
	<-p.done
	return nil
}

// Stdin is p's stdin as an io.WriteCloser, for a peer that writes lines to
// the CLI (a JSON-RPC peer): Write is p.Write, and Close closes stdin, on
// which such CLIs exit.
func (p *Process) Stdin() io.WriteCloser { return stdin{p} }

type stdin struct{ p *Process }

func (w stdin) Write(b []byte) (int, error) {
	if err := w.p.Write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w stdin) Close() error { return w.p.CloseStdin() }
