//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so that a ^C in the
// terminal stops mutants (which then waits for the tests running) and not
// the tests, whose death would count their mutant killed. A command with
// a context is killed with its whole group when the context ends, so that
// nothing a test started outlives its time; where the kernel can
// (dieWithParent), it is killed too when this program dies first.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	if cmd.Cancel != nil { // exec.CommandContext's
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
}
