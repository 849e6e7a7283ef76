//go:build unix && !linux

package main

import "syscall"

// dieWithParent does nothing: only Linux kills a child with its parent;
// elsewhere the test binary's own -test.timeout ends it.
func dieWithParent(*syscall.SysProcAttr) {}
