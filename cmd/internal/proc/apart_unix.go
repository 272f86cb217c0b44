//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// apartAttr puts a process started apart in a session of its own, so
// that a signal to this one's process group (the agent ending its
// hooks) does not reach it.
func apartAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// gone reports whether no process pid is running (one of another user's
// is running: it cannot be signalled, but it is there).
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
