//go:build unix

package gitstore

import (
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at path, as a hostile file a reader must not block
// on.
func mkfifo(t testing.TB, path string) {
	t.Helper()
	must(t, syscall.Mkfifo(path, 0o644))
}
