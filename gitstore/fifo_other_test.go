//go:build !unix

package gitstore

import "testing"

// mkfifo skips the test: this system has no FIFOs in its file system.
func mkfifo(t testing.TB, _ string) {
	t.Helper()
	t.Skip("no FIFOs on this system")
}
