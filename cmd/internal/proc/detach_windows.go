//go:build windows

package proc

import (
	"errors"
	"syscall"
)

// Windows constants that package syscall does not define.
const (
	detachedProcess                = 0x00000008
	processQueryLimitedInformation = 0x1000
	stillActive                    = 259
	errorInvalidParameter          = syscall.Errno(87) // OpenProcess of a pid no process has
)

// detachedAttr starts a background process without this one's console
// and in a process group of its own, so that neither the console closing
// with the agent nor a Ctrl+C to this group ends it.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// gone reports whether no process pid is running: no process has the
// pid, or the one that had it has exited (an open handle keeps an exited
// process listed).
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
