//go:build unix

package programs

import (
	"fmt"
	"os"
	"syscall"
)

// execProgram replaces this process with the program at path: its
// standard streams, signals and exit status are the caller's.
func execProgram(path string, argv []string) error {
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("run %s: %w", path, err)
	}
	return nil // not reached
}
