//go:build windows

package proc

import (
	"errors"
	"syscall"
)

// Windows' values, which package syscall does not name.
const (
	detachedProcess                = 0x00000008
	processQueryLimitedInformation = 0x1000
	stillActive                    = 259
	errorInvalidParameter          = syscall.Errno(87) // OpenProcess of a pid no process has
)

// apartAttr starts a process apart without this one's console and in a
// process group of its own, so that the console closing with the agent,
// or a Ctrl+C to this group, does not end it.
func apartAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// gone reports whether no process pid is running: none has the pid, or
// the one that had it exited (a handle someone holds keeps it listed).
func gone(pid int) bool {
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		return errors.Is(err, errorInvalidParameter)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code != stillActive
}
