package main

import (
	"io"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"
)

// pager returns where a reading command writes: through a pager when
// stdout is a terminal ($GIT_PAGER, $PAGER, else less), else stdout.
// done waits for the pager to finish.
func (e *env) pager(c *cli.Context) (w io.Writer, done func()) {
	nothing := func() {}
	if !e.terminal || flagString(c, "no-pager") == "true" {
		return e.stdout, nothing
	}
	cmdline := e.getenv("GIT_PAGER")
	if cmdline == "" {
		cmdline = e.getenv("PAGER")
	}
	if cmdline == "" {
		cmdline = "less"
	}
	if cmdline == "cat" {
		return e.stdout, nothing
	}
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	cmd.Env = os.Environ()
	if e.getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // quit if one screen, keep colour
	}
	if e.getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return e.stdout, nothing
	}
	return in, func() {
		in.Close()
		_ = cmd.Wait() // the pager's own exit status is the user's business
	}
}

// color reports whether to colour output: --color, NO_COLOR, a terminal.
func (e *env) color(c *cli.Context) bool {
	switch flagString(c, "color") {
	case "always":
		return true
	case "never":
		return false
	}
	return e.terminal && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// checkColorFlag rejects a --color value other than the three known.
func checkColorFlag(c *cli.Context) error {
	switch v := flagString(c, "color"); v {
	case "auto", "always", "never":
		return nil
	default:
		return usagef("--color takes auto, always or never, not %q", v)
	}
}
