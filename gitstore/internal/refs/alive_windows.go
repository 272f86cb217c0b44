//go:build windows

package refs

import (
	"errors"
	"syscall"
)

// Windows' values, which package syscall does not name.
const (
	processQueryLimitedInformation = 0x1000
	stillActive                    = 259
	errorInvalidParameter          = syscall.Errno(87) // OpenProcess of a pid no process has
)

// processAlive reports whether a process with this pid runs (or may: one
// we may not open still runs). A process that exited is gone even while
// someone still holds a handle to it, which keeps its pid taken.
func processAlive(pid int) bool {
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, errorInvalidParameter)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// Alive reports whether a process with this pid runs on this host (or
// may: one that cannot be asked is taken as running).
func Alive(pid int) bool { return processAlive(pid) }
