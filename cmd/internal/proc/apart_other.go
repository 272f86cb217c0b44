//go:build !unix && !windows

package proc

import (
	"os"
	"syscall"
)

// apartAttr: a process started apart needs nothing more here.
func apartAttr() *syscall.SysProcAttr { return nil }

// gone reports whether no process pid is running.
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}
