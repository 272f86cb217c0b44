//go:build !unix && !windows

package proc

import (
	"os"
	"syscall"
)

// detachedAttr returns nil: on this system a background process needs
// no extra attributes.
func detachedAttr() *syscall.SysProcAttr { return nil }

// gone reports whether no process pid is running.
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}
