//go:build windows

package refs

import (
	"errors"
	"syscall"
)

// busy reports whether err says another process holds the file open.
func busy(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.ERROR_ACCESS_DENIED, 32, 33: // and ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION
		return true
	}
	return false
}
