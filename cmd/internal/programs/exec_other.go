//go:build !unix

package programs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// execProgram runs the program at path, given argv and env, with this
// process's streams where a process cannot be replaced, and exits with
// its status.
func execProgram(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		return fmt.Errorf("run %s: %w", path, err)
	}
	os.Exit(0)
	return nil
}
