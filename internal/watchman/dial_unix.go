//go:build unix

package watchman

import (
	"io"
	"os"
	"syscall"
	"time"
)

// dial connects to a unix socket with the system calls themselves:
// package net would add its start-up to every hook call.
func dial(sock string) (io.ReadWriteCloser, error) {
	// Not every unix has SOCK_CLOEXEC (macOS has not): the fork lock
	// keeps a process started meanwhile from inheriting the socket.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	// Non-blocking, the file is read through the runtime's poller, so
	// that a deadline can end a read the server never answers.
	return os.NewFile(uintptr(fd), sock), nil
}

func setDeadline(conn io.ReadWriteCloser, d time.Time) {
	if f, ok := conn.(*os.File); ok {
		_ = f.SetDeadline(d)
	}
}
