//go:build !linux

package proc

import (
	"os/exec"
	"syscall"
)

// supervision is empty where there is no supervisor: the CLI is the direct
// child, in its own process group (Pdeathsig and PR_SET_CHILD_SUBREAPER are
// Linux only).
type supervision struct{}

func command(cfg Config) (*exec.Cmd, *supervision, error) {
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, &supervision{}, cmd.Err
}

func (*supervision) started(string) error { return nil }
func (*supervision) abort()               {}
func (*supervision) release()             {}
func (*supervision) supervised() bool     { return false }
