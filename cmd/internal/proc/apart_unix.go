//go:build unix

package proc

import "syscall"

// apartAttr puts a process started apart in a session of its own, so
// that a signal to this one's process group (the agent ending its
// hooks) does not reach it.
func apartAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
