package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Arg0 is the argv[0] that turns the daemon's binary into a supervisor.
// argv[0] rather than an environment variable, so that nothing of it
// reaches the CLI. The rest of argv is the CLI's path, then its argv.
const Arg0 = "cdevd-supervisor"

// The files the daemon passes to the supervisor (ExtraFiles).
const (
	CtlFD    = 3 // read end of the control pipe: EOF means end the tree
	StatusFD = 4 // write end of the start report: EOF alone means started
)

// Every binary that spawns CLIs imports package proc, and so this one, and
// its init runs in the re-executed binary before main or TestMain would.
// The check sits in this leaf package rather than in proc so that it runs
// before nearly every other package's init (Go initializes a ready package
// early in import-path order): a supervisor then runs none of cdevd's
// initialization, which keeps its memory and start time small.
func init() {
	if len(os.Args) >= 3 && os.Args[0] == Arg0 {
		supervise(os.Args[1], os.Args[2:])
	}
}

// supervise runs path with argv, as described above, and never returns.
func supervise(path string, argv []string) {
	status := os.NewFile(StatusFD, "status")
	fail := func(err error) {
		var errno syscall.Errno
		errors.As(err, &errno)
		fmt.Fprintf(status, "%d %v", int(errno), err)
		syscall.Exit(127)
	}
	// Neither pipe may reach the CLI: the status pipe must close when the
	// CLI starts, and only the daemon may hold the control pipe open.
	syscall.CloseOnExec(CtlFD)
	syscall.CloseOnExec(StatusFD)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail(fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err))
	}
	daemon := os.Getppid()
	sigs := make(chan os.Signal, 8)
	for _, s := range []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		if !signal.Ignored(s) { // an inherited ignore stays one, for the CLI too
			signal.Notify(sigs, s)
		}
	}
	cli, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fail(err)
	}
	// The CLI runs in the session's directory (ours until now, so that a
	// bad one failed in the daemon as before); we need none, and must not
	// keep it busy.
	_ = os.Chdir("/")
	status.Close()

	s := &supervisor{self: os.Getpid()}
	go func() {
		_, _ = io.Copy(io.Discard, os.NewFile(CtlFD, "control"))
		s.end()
	}()
	go func() {
		// SIGHUP is also the Pdeathsig the daemon set, a second line behind
		// the pipe. Group signals come from a living daemon: the CLI got
		// them too and decides.
		for range sigs {
			if os.Getppid() != daemon {
				s.end()
			}
		}
	}()
	exitLike(s.reap(cli))
}

type supervisor struct {
	self   int
	ending atomic.Bool // the tree must go: every reap is followed by a sweep
}

func (s *supervisor) end() {
	s.ending.Store(true)
	s.killDescendants()
}

// reap waits for children until there are none left and returns how the
// CLI ended. While ending, every reaped child is followed by a new sweep: a
// process that forked after the last sweep, before its SIGKILL landed, has
// a child that sweep missed, which its death has reparented to us. The
// last killed process to die is our child, so each such death wakes us.
func (s *supervisor) reap(cli int) syscall.WaitStatus {
	var cliStatus syscall.WaitStatus
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: as a subreaper, no descendant is left anywhere
			return cliStatus
		}
		if pid == cli {
			cliStatus = ws
			s.end()
		} else if s.ending.Load() {
			s.killDescendants()
		}
	}
}

// killDescendants SIGKILLs every process whose parent chain leads to us,
// found by one scan of /proc.
func (s *supervisor) killDescendants() {
	parents := scanParents()
	mine := map[int]bool{s.self: true}
	var isMine func(pid, depth int) bool
	isMine = func(pid, depth int) bool {
		if v, ok := mine[pid]; ok {
			return v
		}
		pp, ok := parents[pid]
		v := ok && depth < len(parents) && isMine(pp, depth+1)
		mine[pid] = v
		return v
	}
	for pid, ppid := range parents {
		if pid != s.self && isMine(pid, 0) {
			killIfStill(pid, ppid, mine)
		}
	}
}

// scanParents maps every process in /proc to its parent.
func scanParents() map[int]int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	parents := make(map[int]int, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			parents[pid] = ppid
		}
	}
	return parents
}

// parentOf reads pid's parent from /proc/<pid>/stat: "pid (comm) state
// ppid ...", where comm may hold spaces and parentheses.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// killIfStill SIGKILLs pid through a pidfd, after checking that the
// process the pidfd holds still has a parent in our tree: between the scan
// and now, pid may have ended and its number gone to a stranger.
func killIfStill(pid, ppid int, mine map[int]bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, syscall.ENOSYS) { // before Linux 5.3
		_ = syscall.Kill(pid, syscall.SIGKILL)
		return
	}
	if err != nil {
		return // gone
	}
	defer unix.Close(fd)
	if now, ok := parentOf(pid); !ok || (now != ppid && !mine[now]) {
		return
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}

// exitLike ends the supervisor the way the CLI ended, so that the daemon
// reads the CLI's status from ours. syscall.Exit, not os.Exit: there is
// nothing to flush, and a race-enabled binary would otherwise sleep a
// second at exit.
func exitLike(ws syscall.WaitStatus) {
	if ws.Exited() {
		syscall.Exit(ws.ExitStatus())
	}
	// The termination signals the Go runtime dies of once no longer
	// caught; sent to this thread so that it acts before kill returns. Any
	// other (ignored by the runtime, or turned into a stack dump) becomes
	// SIGKILL: the daemon only tells a signal from an exit code.
	switch sig := ws.Signal(); sig {
	case syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		runtime.LockOSThread()
		_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
