//go:build darwin || ios || freebsd || netbsd

package codestate

import "syscall"

func ctimespec(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }
