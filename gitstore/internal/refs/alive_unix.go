//go:build unix

package refs

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid runs (or may:
// one we may not signal still runs).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Alive reports whether a process with this pid runs on this host (or
// may: one that cannot be asked is taken as running).
func Alive(pid int) bool { return processAlive(pid) }
