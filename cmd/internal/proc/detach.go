package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// StartDetached starts exe with args, stdin, and this process's environment
// plus extra, as a separate process that outlives this one (in its own
// session, where the system has sessions). The new process does not
// share this one's output, so that whoever waits for this process's
// output does not also wait for it.
func StartDetached(exe string, args []string, stdin []byte, extra []string) error {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), extra...)
	cmd.SysProcAttr = detachedAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start %s in the background: %w", exe, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s in the background: %w", exe, err)
	}
	// Write all of stdin before returning, but do not wait for the
	// process: it is reparented when this one exits.
	_, err = in.Write(stdin)
	return errors.Join(err, in.Close(), cmd.Process.Release())
}
