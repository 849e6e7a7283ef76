//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so that a ^C in the
// terminal stops mutants (which then waits for the tests running) and not
// the tests, whose death would count their mutant killed.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
