//go:build !unix

package proc

import "syscall"

// apartAttr: a process started apart needs nothing more here.
func apartAttr() *syscall.SysProcAttr { return nil }
