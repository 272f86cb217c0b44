package cmdline

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

// outputKeys are the git config keys that say how output looks.
var outputKeys = []string{"core.pager", "pager.snap", "color.ui"}

// outputConfig reads what git's config says of paging and colour, when
// it can matter: a reading command, or any command on a terminal. The
// hook, never on a terminal, reads no config file for it.
func (e *env) outputConfig(sh shape, paths gitstore.Paths) map[string]string {
	if !sh.pager && !e.terminal {
		return nil
	}
	return gitstore.GitConfig(paths, e.gitEnv(), outputKeys...)
}

// lookupEnv tells an unset variable from an empty one, which git's
// GIT_PAGER= (paging off) needs.
func (e *env) lookupEnv(name string) (string, bool) {
	if e.lookupenv != nil {
		return e.lookupenv(name)
	}
	v := e.getenv(name)
	return v, v != ""
}

// pager returns where a reading command writes: through the pager git
// would choose (see pagerCommand) when stdout is a terminal and
// --no-pager is not given, else stdout. done waits for the pager.
func (e *env) pager(c *cli.Context, gitCfg map[string]string) (w io.Writer, done func()) {
	nothing := func() {}
	if !e.terminal || flagString(c, "no-pager") == "true" {
		return e.stdout, nothing
	}
	cmdline := pagerCommand(e.lookupEnv, gitCfg)
	if cmdline == "" || cmdline == "cat" {
		return e.stdout, nothing
	}
	// A signal must not end git-snap before the pager, which would
	// hand the terminal back to the shell while the pager still reads it.
	e.watchSignals()
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	cmd.Env = os.Environ()
	if e.getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // quit if one screen, keep colour
	}
	if e.getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	cmd.Env = append(cmd.Env, "GIT_PAGER_IN_USE=true")
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return e.stdout, nothing
	}
	return in, func() {
		in.Close()
		_ = cmd.Wait() // the pager's own exit status is the user's business
	}
}

// pagerCommand is the pager git would run for git snap: pager.snap when
// it names one (false turns paging off), else $GIT_PAGER, core.pager,
// $PAGER, less, the first that is set. Set and empty means no pager,
// as "cat" does.
func pagerCommand(lookup func(string) (string, bool), gitCfg map[string]string) string {
	if v, ok := gitCfg["pager.snap"]; ok {
		switch b, isBool := gitBool(v); {
		case isBool && !b:
			return ""
		case !isBool:
			return v
		}
	}
	if v, ok := lookup("GIT_PAGER"); ok {
		return v
	}
	if v, ok := gitCfg["core.pager"]; ok {
		return v
	}
	if v, ok := lookup("PAGER"); ok {
		return v
	}
	return "less"
}

// gitBool reads a git config boolean; isBool is false for other text.
// A key with no value ("[pager] snap") is true, as for git.
func gitBool(v string) (b, isBool bool) {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// color reports whether to colour output (see useColor). Output that
// git already pipes to its pager ($GIT_PAGER_IN_USE) counts as a
// terminal, as it does for git's own commands.
func (e *env) color(c *cli.Context, gitCfg map[string]string) bool {
	v := e.getenv("GIT_PAGER_IN_USE")
	inPager, _ := gitBool(v)
	terminal := (e.terminal || inPager && v != "") && e.getenv("TERM") != "dumb"
	return useColor(flagString(c, "color"), gitCfg["color.ui"], e.getenv("NO_COLOR") != "", terminal)
}

// useColor decides colour: --color always or never, else color.ui
// always or never (true and auto mean as on a terminal, as in git),
// else none when $NO_COLOR is set (no-color.org: configuration and
// flags win over it), else on a terminal.
func useColor(flag, colorUI string, noColor, terminal bool) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	switch strings.ToLower(colorUI) {
	case "always":
		return true
	case "never", "false", "no", "off", "0":
		return false
	}
	return !noColor && terminal
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

// progressLine is a line of progress on a terminal, redrawn in place and
// cleared before anything else is printed, so that neither output nor an
// error message starts on it. With no writer it shows nothing.
type progressLine struct {
	w     io.Writer
	shown bool
}

func (p *progressLine) show(format string, a ...any) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r"+format+"\x1b[K", a...)
	p.shown = true
}

func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// upgradeProgress shows, on a terminal, how far the counting of
// snapshots written without totals (by an older version) has gone, when
// there are many: the once-only upgrade the first stats, sessions or
// usage makes. The line is cleared once the counting is done.
func upgradeProgress(d *deps) func(done, of int) {
	p := &progressLine{w: d.progress}
	return func(done, of int) {
		switch {
		case of < 20:
		case done < of:
			p.show("counting %d/%d snapshots written before totals were kept (once)", done+1, of)
		default:
			p.clear()
		}
	}
}

// progressFlags are git's --progress and --no-progress.
func progressFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "progress", Usage: "show progress on stderr even when it is not a terminal"},
		&cli.BoolFlag{Name: "no-progress", Usage: "show no progress, even on a terminal"},
	}
}

// progressTo is where progress goes by git's rule: stderr when it is a
// terminal, unless --no-progress; stderr in any case with --progress;
// nowhere (nil) otherwise.
func (e *env) progressTo(c *cli.Context) io.Writer {
	if c.Bool("progress") || (e.errTerminal && !c.Bool("no-progress")) {
		return e.stderr
	}
	return nil
}
