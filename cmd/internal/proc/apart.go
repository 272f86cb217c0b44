package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// StartApart starts exe with args, stdin and this process's variables
// plus extra, in a process of its own that outlives this one (its own
// session where there are sessions): it writes nothing where this
// process does, so that whoever waits on this one's output does not wait
// on it.
func StartApart(exe string, args []string, stdin []byte, extra []string) error {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), extra...)
	cmd.SysProcAttr = apartAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start %s apart: %w", exe, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s apart: %w", exe, err)
	}
	// Written whole before this process goes on; the process itself is
	// not waited for: it is reparented when this one exits.
	_, err = in.Write(stdin)
	return errors.Join(err, in.Close(), cmd.Process.Release())
}
