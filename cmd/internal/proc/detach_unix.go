//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// detachedAttr puts a background process in a session of its own, so
// that a signal to this process's group (the agent ending its hooks)
// does not reach it.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// gone reports whether no process pid is running. Another user's process
// counts as running: it cannot be signalled, but it exists.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
