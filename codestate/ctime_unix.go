//go:build unix && !(darwin || ios || freebsd || netbsd)

package codestate

import "syscall"

func ctimespec(st *syscall.Stat_t) syscall.Timespec { return st.Ctim }
