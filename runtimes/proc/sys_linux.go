package proc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/cdevd/cdevd/runtimes/proc/internal/supervisor"
)

// supervision is the daemon's side of a session's supervisor (see
// internal/supervisor): the write end of its control pipe, and the read end
// of its start report until that is read.
type supervision struct {
	ctl     *os.File
	status  *os.File
	ctlR    *os.File // the supervisor's ends, closed here once it started
	statusW *os.File
}

// command builds the command that runs cfg's CLI under a supervisor: this
// very binary (/proc/self/exe, which stays valid if the file is replaced),
// told by its argv[0] to supervise. The supervisor leads its own process
// group, as the CLI did when it was spawned directly, and gets SIGHUP if
// the daemon dies (Pdeathsig; the control pipe is the first line). The
// kernel ties Pdeathsig to the thread that forked, and the Go runtime may
// retire threads; the supervisor only acts on it once its parent changed.
func command(cfg Config) (*exec.Cmd, *supervision, error) {
	path := cfg.Path
	if !strings.Contains(path, "/") { // as exec.Command does, with our PATH
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, nil, err
		}
		path = lp
	}
	ctlR, ctl, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	status, statusW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctl.Close()
		return nil, nil, err
	}
	cmd := exec.Command("/proc/self/exe", append([]string{path, cfg.Path}, cfg.Args...)...)
	cmd.Args[0] = supervisor.Arg0
	cmd.ExtraFiles = []*os.File{supervisor.CtlFD - 3: ctlR, supervisor.StatusFD - 3: statusW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGHUP}
	return cmd, &supervision{ctl: ctl, status: status, ctlR: ctlR, statusW: statusW}, nil
}

// started closes the supervisor's ends of the pipes (cmd.Start returned)
// and waits for its report: EOF alone when the CLI was started, else why
// not.
func (s *supervision) started(path string) error {
	s.ctlR.Close()
	s.statusW.Close()
	b, err := io.ReadAll(s.status)
	s.status.Close()
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	errno, msg, _ := strings.Cut(string(b), " ")
	if n, _ := strconv.Atoi(errno); n != 0 {
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
	}
	return errors.New(msg)
}

// abort releases everything when the process could not be started.
func (s *supervision) abort() {
	s.ctlR.Close()
	s.statusW.Close()
	s.status.Close()
	s.ctl.Close()
}

// release closes the control pipe: the supervisor kills every descendant
// and exits. Safe to call more than once.
func (s *supervision) release() { _ = s.ctl.Close() }

// supervised says whether release ends the tree.
func (s *supervision) supervised() bool { return true }
