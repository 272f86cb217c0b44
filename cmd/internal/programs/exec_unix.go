//go:build unix

package programs

import (
	"fmt"
	"syscall"
)

// execProgram replaces this process with the program at path, given
// argv and env: its standard streams, signals and exit status are the
// caller's.
func execProgram(path string, argv, env []string) error {
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("run %s: %w", path, err)
	}
	return nil // not reached
}
