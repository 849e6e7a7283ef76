package main

import "syscall"

// dieWithParent has the kernel kill the process when this program dies.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
