package cmdline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// env is what a command may touch of the world: no globals, so that
// tests run commands in process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dir            string // working directory
	terminal       bool   // stdout is a terminal
	errTerminal    bool   // stderr is a terminal: progress is shown there, as git shows it
	width          int    // the terminal's columns, 0 when not a terminal
	getenv         func(string) string
	lookupenv      func(string) (string, bool) // nil: unset and empty are alike
	args           []string                    // as given, to echo options as they were typed
	notFound       string                      // an unknown command name, for the error
	ctx            context.Context             // the command's, whose cause says which signal stopped it
	// startDetached runs git-snap again in a detached process, with args
	// and stdin, and the variables of this one plus extra (see hook.Call's
	// StartDetached); nil where git-snap is not this process (tests that
	// run commands in process).
	startDetached func(args []string, stdin []byte, extra ...string) error
	// watch starts watching Ctrl-C and SIGTERM, which then cancel ctx
	// (proc.Signals); nil where no signal is watched (tests that run
	// commands in process).
	watch func()
}

func (e *env) run(ctx context.Context, args []string) int {
	e.ctx = ctx
	app := e.newApp()
	e.args = args
	args = reorderArgs(app, args)
	err := app.RunContext(ctx, append([]string{"git-snap"}, args...))
	if err == nil && e.notFound != "" {
		err = unknownCommand(app, e.notFound)
	}
	return e.report(err)
}

// onlyPrint are the commands that read and print: as git's reading
// commands, Ctrl-C ends them at once unless they page (see
// watchSignals), even while they wait on a full pipe. Every other
// command watches from the start of its action, to stop cleanly where it
// next looks.
var onlyPrint = []string{"log", "show", "diff", "sessions", "stats", "usage", "blame"}

// watchSignals starts watching Ctrl-C and SIGTERM, once.
func (e *env) watchSignals() {
	if e.watch != nil {
		e.watch()
	}
}

// newApp is git-snap's command line.
func (e *env) newApp() *cli.App {
	app := &cli.App{
		Name:                 "git-snap",
		HelpName:             "git snap", // as people type it, in every usage line
		Usage:                "version AI agents' state in git",
		UsageText:            "git snap [-C DIR] [--store DIR] <command> [options] [args]",
		Description:          "Snapshots are canonical JSON committed to refs/snap/<session>, one commit per snapshot;\ncheckpoints are tags refs/snap-tags/<session>/<name>. Your work tree, index and HEAD are never touched.",
		Reader:               e.stdin,
		Writer:               e.stdout,
		ErrWriter:            e.stderr,
		Version:              proc.Version(),
		EnableBashCompletion: false,
		Flags:                globalFlags(),
		Commands:             e.commands(),
		CommandNotFound:      func(_ *cli.Context, name string) { e.notFound = name },
		Action: func(c *cli.Context) error { // no command: what git does, usage and exit status 1
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			if err := cli.ShowAppHelp(c); err != nil {
				return err
			}
			return &exitStatus{1}
		},
		ExitErrHandler: func(*cli.Context, error) {},
		// A repeated flag is a list (blame -L A -L B); a comma is part of
		// the value, as git reads -L 10,20.
		DisableSliceFlagSeparator: true,
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return e.flagUsageError(app, nil, err)
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return e.flagUsageError(app, cmd, err)
		}
		// --no-pager and --color go after any command too, as git's do.
		cmd.Flags = quietDefaults(append(cmd.Flags, outputFlags()...))
		if _, ok := jsonOutputs[cmd.Name]; ok && hasFlag(cmd.Flags, "json") {
			cmd.Flags = append(cmd.Flags, jsonFlags()...)
		}
	}
	return app
}

// commands are git-snap's commands, in the order help lists them.
func (e *env) commands() []*cli.Command {
	return []*cli.Command{
		cmdInit(e), cmdSave(e), cmdLog(e), cmdShow(e), cmdDiff(e),
		cmdRestore(e), cmdRollback(e), cmdCheckpoint(e),
		cmdExport(e), cmdImport(e), cmdSessions(e), cmdStats(e),
		cmdScan(e), cmdHook(e), cmdInstall(e, true), cmdInstall(e, false),
		cmdRecord(e), cmdReplay(e), cmdTrace(e), cmdRewind(e),
		cmdPush(e), cmdFetch(e), cmdPull(e), cmdPrune(e), cmdDrop(e),
		cmdGC(e), cmdDemo(e), cmdDoctor(e), cmdResume(e),
		cmdCompletion(e), cmdComplete(e), cmdUndrop(e),
		cmdSearch(e), cmdView(e), cmdUsage(e), cmdPrices(e),
		cmdName(e), cmdMigrate(e), cmdMCP(e), cmdPR(e), cmdBlame(e),
	}
}

// globalFlags are the options given before the command.
func globalFlags() []cli.Flag {
	return quietDefaults(append([]cli.Flag{
		&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR`"},
		&cli.StringFlag{Name: "store", Usage: "keep snapshots in the repository at `DIR` (a store made by init --bare); also $GIT_SNAP_DIR"},
	}, outputFlags()...))
}

// outputFlags are accepted before the command and, by reading commands,
// after it too (git snap log --color=always).
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-pager", Usage: "do not page output"},
		&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour output `WHEN`: auto, always or never (--color alone: always; --no-color: never)"},
	}
}

// flagString is the value of a flag set on the command or before it.
func flagString(c *cli.Context, name string) string {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(name) {
			return ctx.String(name)
		}
	}
	return c.String(name)
}

// report prints err for a person and returns the exit status.
func (e *env) report(err error) int {
	if err == nil {
		return 0
	}
	var exit *exitStatus
	if errors.As(err, &exit) {
		return exit.code
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(e.stderr, "git-snap: interrupted; nothing more was written")
		if e.ctx != nil {
			var s *proc.Stopped
			if errors.As(context.Cause(e.ctx), &s) {
				return s.Code // 143 for SIGTERM
			}
		}
		return 130
	}
	code := exitCode(err)
	w := render.NewSafe(e.stderr, false) // an error can quote what it read
	fmt.Fprintf(w, "git-snap: %v\n", err)
	if hint := hintFor(err); hint != "" {
		fmt.Fprintf(w, "hint: %s\n", hint)
	}
	_ = w.Flush()
	return code
}

// userError is what every error meant for users has, whichever package
// made it: the call or the input is wrong, and nothing was written.
type userError interface{ UserError() }

// exitCode is 2 for what the user can correct in the call or the input,
// 1 for failures.
func exitCode(err error) int {
	var u userError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func hintFor(err error) string {
	var (
		syntax *snapshot.SyntaxError
		input  *snapshot.InputError
		rev    *storage.RevisionError
		absent *storage.NotFoundError
	)
	switch {
	case errors.Is(err, gitstore.ErrNotRepository):
		return "run git snap inside a git repository, or point at one with -C DIR or --store DIR (git snap init --bare DIR makes one)"
	case errors.As(err, &syntax):
		return "the document must be one JSON object; fix it at the place named and run the command again. Nothing was written."
	case errors.As(err, &input):
		return "fix the document at the place named and run the command again. Nothing was written."
	case errors.As(err, &rev), errors.As(err, &absent):
		return "list sessions with git snap sessions, snapshots with git snap log --all"
	}
	var damaged *storage.DamagedSessions
	if errors.As(err, &damaged) {
		return "the repository lacks or has damaged objects those sessions need (git fsck --full names them); git snap pull from a clone that has them brings them back, and git snap drop SESSION sets a session aside (git snap undrop brings it back)"
	}
	var damagedCps *storage.DamagedCheckpoints
	if errors.As(err, &damagedCps) {
		return "the repository lacks or has damaged the tags of those checkpoints (git fsck --full names them); git snap pull from a clone that has them brings them back, and git snap checkpoint --delete SESSION/NAME removes one"
	}
	if gitstore.IsDamaged(err) {
		return "the repository lacks or has damaged an object this needs (git fsck --full names what is wrong); git snap pull, or git snap import of a bundle, from a copy that has the session brings it back"
	}
	var usage *usageError
	if errors.As(err, &usage) {
		return usageHint(usage)
	}
	return ""
}

// deps is what a command's run function works with. The action opens it
// from the flags and the env; tests make one around a store of their own.
type deps struct {
	repo     *gitsnap.Repository // nil for the commands that open none (init, demo)
	paths    gitstore.Paths      // the repository's; zero for init --bare and demo
	cfg      config.Config
	in       io.Reader
	out      io.Writer // stdout, or the pager for a reading command
	errOut   io.Writer
	progress io.Writer // errOut when it is a terminal, else nil
	color    render.Palette
	width    int    // the terminal's columns to wrap text at, 0: no wrapping
	session  string // the default session: $GIT_SNAP_SESSION, else the config's
	dir      string // the process's directory, where relative FILE arguments are
	workDir  string // the directory -C names, where a work tree is looked for
	gitEnv   gitstore.GitEnv
	agentEnv agent.Env // where agents keep their files
	now      func() time.Time
	// openAt opens the store for dir, for a command that works where a
	// repository may or may not be (doctor, prices, view's searches).
	openAt  func(ctx context.Context, dir string) (*gitsnap.Repository, config.Config, error)
	pathsAt func(dir string) (gitstore.Paths, error)
	// dirGiven says -C or --store named where to work; storeFlag is the
	// store --store or $GIT_SNAP_DIR names, "" for none.
	dirGiven      bool
	storeFlag     string
	startDetached func(args []string, stdin []byte, extra ...string) error
	getenv        func(string) string
	wait          func() // waits for the pager
	// userConfigDir is the user's configuration directory, where the
	// user's copy of the price list is kept.
	userConfigDir string
	priceTable    *prices.Prices
	// saidSession is set once the command said which session it took
	// (see defaultSession).
	saidSession bool
	jsonCut     *jsonCut // --json FIELD,… and --jq, for writeJSON
}

// prices are the prices costs are estimated with: the user's copy of the
// dataset (git snap prices update), else the embedded one, with the
// config's prices over it.
func (d *deps) prices() (*prices.Prices, error) {
	if d.priceTable == nil {
		p, err := prices.Load(d.userConfigDir, configPrices(d.cfg))
		if err != nil {
			return nil, err
		}
		d.priceTable = p
	}
	return d.priceTable, nil
}

// close waits for the pager and closes the store.
// bufferOut buffers what a reading command prints: a table of 2,000
// sessions written cell by cell cost a third of the command's time in
// write calls. close flushes it before anything else is said.
func (d *deps) bufferOut() {
	bw := bufio.NewWriterSize(d.out, 32<<10)
	wait := d.wait
	d.out, d.wait = bw, func() {
		_ = bw.Flush() // a reader that went away (| head) is not an error
		if wait != nil {
			wait()
		}
	}
}

func (d *deps) close() {
	if d.wait != nil {
		d.wait()
	}
	if d.repo != nil {
		d.repo.Close()
	}
}

// level is how much of the repository a command opens.
type level int

const (
	withStore   level = iota // the store and its config: most commands
	withRepo                 // only where the repository is: init
	withNothing              // nothing: init --bare, demo
)

// shape is what an action checks and opens before it runs a command.
type shape struct {
	min, max int // positional arguments; max -1 for any number
	open     level
	pager    bool // page the output on a terminal
	// protocol says stdout is a protocol a program reads (mcp, hook),
	// written as it is; every other command's output goes through
	// render.Safe.
	protocol bool
}

// rawFlag is --raw of the commands that print recorded text.
func rawFlag() cli.Flag {
	return &cli.BoolFlag{Name: "raw", Usage: "print recorded text as it is, control characters and escape sequences too (for a program, never a terminal)"}
}

// action makes the action of a command; all a command reads of the
// *cli.Context is read here. It checks the arguments and --color, reads
// the flags and arguments into options with parse (so that usage errors
// come before any repository is looked for), opens deps, runs and closes
// them.
func action[O any](e *env, sh shape, parse func(*cli.Context) (O, error), run func(context.Context, *deps, O) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := args(c, sh.min, sh.max); err != nil {
			return forCommand(err, c.Command.Name)
		}
		if err := checkColorFlag(c); err != nil {
			return forCommand(err, c.Command.Name)
		}
		cut, err := e.jsonCutOf(c)
		if err != nil {
			return forCommand(err, c.Command.Name)
		}
		o, err := parse(c)
		if err != nil {
			return forCommand(err, c.Command.Name)
		}
		if !slices.Contains(onlyPrint, c.Command.Name) {
			e.watchSignals()
		}
		d, err := e.open(c, sh)
		if err != nil {
			return err
		}
		d.jsonCut = cut
		defer d.close()
		return forCommand(run(c.Context, d, o), c.Command.Name)
	}
}

// jsonCutOf reads --json FIELD,… and --jq, which both ask for JSON.
func (e *env) jsonCutOf(c *cli.Context) (*jsonCut, error) {
	if !hasFlag(c.Command.Flags, "jq") {
		return nil, nil
	}
	fields, expr := c.String("json-fields"), c.String("jq")
	if fields == "" && expr == "" {
		return nil, nil
	}
	if err := c.Set("json", "true"); err != nil {
		return nil, err
	}
	return parseJSONCut(c.Command.Name, fields, expr)
}

// open opens what sh says: the repository's paths, its config and store,
// then the pager.
func (e *env) open(c *cli.Context, sh shape) (*deps, error) {
	var (
		s     *gitsnap.Repository
		paths gitstore.Paths
		cfg   config.Config
		err   error
	)
	if sh.open != withNothing {
		if paths, err = e.storePaths(c); err != nil {
			return nil, err
		}
	}
	if sh.open == withStore {
		if s, cfg, err = e.openPaths(c.Context, paths); err != nil {
			return nil, err
		}
	}
	gitCfg := e.outputConfig(sh, paths)
	d := e.newDeps(c, s, cfg, gitCfg)
	d.paths = paths
	if s != nil && c.Command.Name != "migrate" {
		noticeCheckpoints(c.Context, d)
	}
	if sh.pager {
		d.out, d.wait = e.pager(c, gitCfg)
		d.bufferOut()
	}
	if !sh.protocol {
		d.safeOutput(hasFlag(c.Command.Flags, "raw") && c.Bool("raw"))
	}
	return d, nil
}

// safeOutput puts stdout and stderr through render.Safe: recorded text
// cannot send a terminal its own escape sequences (OSC 52 writes the
// clipboard); raw (--raw) leaves stdout as written.
func (d *deps) safeOutput(raw bool) {
	out, errOut := render.NewSafe(d.out, false), render.NewSafe(d.errOut, true)
	out.SetColours(d.color.On)
	errOut.SetColours(d.color.On)
	if raw {
		out.SetRaw()
	}
	if d.progress != nil {
		d.progress = errOut
	}
	wait := d.wait
	d.out, d.errOut, d.wait = out, errOut, func() {
		_ = out.Flush() // a reader that went away (| head) is not an error
		_ = errOut.Flush()
		if wait != nil {
			wait()
		}
	}
}

// binaryOut is stdout for output that is not text (a bundle): as it is.
func (d *deps) binaryOut() io.Writer {
	if s, ok := d.out.(*render.Safe); ok {
		return s.Underlying()
	}
	return d.out
}

// newDeps gives a command s and cfg with what the process gives; gitCfg
// is what git's config says of colour.
func (e *env) newDeps(c *cli.Context, s *gitsnap.Repository, cfg config.Config, gitCfg map[string]string) *deps {
	d := &deps{
		repo: s, cfg: cfg, in: e.stdin, out: e.stdout, errOut: e.stderr, color: render.Palette{On: e.color(c, gitCfg)}, width: e.width,
		session: e.defaultSession(cfg), dir: e.dir, workDir: e.workDir(c), gitEnv: e.gitEnv(),
		agentEnv: e.agentEnv(), now: e.now, dirGiven: c.String("C") != "" || e.storeFlag(c) != "", storeFlag: e.storeFlag(c),
		userConfigDir: e.userConfigDir(), startDetached: e.startDetached, getenv: e.getenv,
	}
	d.pathsAt = func(dir string) (gitstore.Paths, error) { return e.storePathsAt(e.storeFlag(c), dir) }
	d.openAt = func(ctx context.Context, dir string) (*gitsnap.Repository, config.Config, error) {
		paths, err := d.pathsAt(dir)
		if err != nil {
			return nil, config.Config{}, err
		}
		return e.openPaths(ctx, paths)
	}
	if s != nil {
		d.paths = s.Paths()
	}
	if e.errTerminal {
		d.progress = e.stderr
	}
	return d
}

// openPaths loads the config of the repository at paths and opens its
// store with the config's prefix and redaction rules.
func (e *env) openPaths(ctx context.Context, paths gitstore.Paths) (*gitsnap.Repository, config.Config, error) {
	repo, err := gitsnap.OpenPaths(ctx, paths, gitsnap.Options{
		UserConfigDir: e.userConfigDir(),
		GitEnv:        e.gitEnv(),
		Warnf:         func(f string, a ...any) { fmt.Fprintf(e.stderr, "git-snap: warning: "+f+"\n", a...) },
		Now:           e.now,
		Watchman:      proc.Watchman(e.getenv),
	})
	if err != nil {
		return nil, config.Config{}, err
	}
	return repo, repo.Config, nil
}

func (e *env) workDir(c *cli.Context) string {
	if d := c.String("C"); d != "" {
		if filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(e.dir, d)
	}
	return e.dir
}

func (e *env) storePaths(c *cli.Context) (gitstore.Paths, error) {
	if err := mustBeDir("-C", c.String("C"), e.workDir(c)); err != nil {
		return gitstore.Paths{}, err
	}
	return e.storePathsAt(e.storeFlag(c), e.workDir(c))
}

// mustBeDir refuses a directory the user named (with flag) that is not
// there, as git -C does: looking for a repository above it would find
// the enclosing one and write there instead.
func mustBeDir(flag, given, path string) error {
	if given == "" {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return usagef("%s %s: %v", flag, given, errors.Unwrap(err))
	case !fi.IsDir():
		return usagef("%s %s: not a directory", flag, given)
	}
	return nil
}

// storeFlag is the store --store or $GIT_SNAP_DIR names, "" for none.
func (e *env) storeFlag(c *cli.Context) string {
	return or(c.String("store"), e.getenv("GIT_SNAP_DIR"))
}

// storePathsAt finds the repository snapshots go to: store when set
// (relative to dir), else the one dir is in.
func (e *env) storePathsAt(store, dir string) (gitstore.Paths, error) {
	if store != "" {
		given := store
		if !filepath.IsAbs(store) {
			store = filepath.Join(dir, store)
		}
		if err := mustBeDir("--store", given, store); err != nil {
			return gitstore.Paths{}, err
		}
		return gitstore.Discover(store, e.gitEnv())
	}
	return gitstore.Discover(dir, e.gitEnv())
}

// userConfigDir is where the user's settings live (proc.UserConfigDir).
func (e *env) userConfigDir() string { return proc.UserConfigDir(e.getenv) }

// now is the time of new snapshots (proc.Now).
func (e *env) now() time.Time { return proc.Now(e.getenv) }

// gitEnv is what git's environment variables say (proc.GitEnv).
func (e *env) gitEnv() gitstore.GitEnv { return proc.GitEnv(e.getenv) }

// defaultSession is $GIT_SNAP_SESSION, else the config's session.
func (e *env) defaultSession(cfg config.Config) string {
	return or(e.getenv("GIT_SNAP_SESSION"), cfg.Session)
}

// abs makes a relative file name given to the command absolute.
func (d *deps) abs(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(d.dir, path)
}

// writeOutput writes data to path, or to out for "" or -. A path that
// names nothing yet or a regular file gets a temporary file beside it,
// renamed into place, so that a reader never sees a part; the new file
// is created as any program's is (0666 less the umask), and one that
// replaces a regular file keeps that file's mode. A device, FIFO or
// socket is written through, as a shell's > does: renaming over
// /dev/null as root replaced it with a regular file. A symbolic link is
// followed to what it names, which is then written as above: the link
// stays. A directory is refused.
func (d *deps) writeOutput(path string, data []byte) error {
	return d.writeOutputWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeOutputWith is writeOutput of what write writes, as it writes it:
// a long export is never held whole. Into a file it goes through a new
// file renamed into place, so that a failed write leaves the old one.
func (d *deps) writeOutputWith(path string, write func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return write(d.out)
	}
	path = d.abs(path)
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("write %s: %w", path, err)
			}
			// A dangling link: write the file it names.
			dest, rerr := os.Readlink(path)
			if rerr != nil {
				return fmt.Errorf("write %s: %w", path, rerr)
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
			target = dest
		}
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return usagef("-o %s is a directory; name a file to write", path)
	case err == nil && !fi.Mode().IsRegular():
		return writeThrough(target, write)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: %w", path, err)
	}
	mode := os.FileMode(0o666) // less the umask, by the kernel
	if err == nil {
		mode = fi.Mode().Perm()
	}
	return replaceFile(target, write, mode, err == nil)
}

// writeThrough writes data into an existing device, FIFO or socket.
func writeThrough(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// replaceFile writes data to a new file beside path and renames it into
// place. The new file is opened with mode (the umask applies); keep says
// path is a regular file already, whose mode the new one takes exactly.
func replaceFile(path string, write func(w io.Writer) error, mode os.FileMode, keep bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	var tmp *os.File
	var err error
	for range 100 {
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = write(tmp)
	if err == nil && keep {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// args checks the number of positional arguments.
func args(c *cli.Context, min, max int) error {
	n := c.NArg()
	switch {
	case n < min:
		return usagef("%s needs %s", c.Command.Name, c.Command.ArgsUsage)
	case max >= 0 && n > max:
		return usagef("%s takes at most %d argument(s), got %d: %s", c.Command.Name, max, n, strings.Join(c.Args().Slice(), " "))
	}
	return nil
}

// reorderArgs moves a command's flags before its positional arguments,
// since the flag parser stops at the first positional one and people
// write `git snap diff A B --stat`.
func reorderArgs(app *cli.App, argv []string) []string {
	argv = gitFlags(app, argv)
	i := 0
	for i < len(argv) && strings.HasPrefix(argv[i], "-") { // global flags
		if takesValue(app.Flags, argv[i]) && !strings.Contains(argv[i], "=") {
			i++
		}
		i++
	}
	if i >= len(argv) {
		return argv
	}
	cmd := app.Command(argv[i])
	if cmd == nil || cmd.SkipFlagParsing {
		return argv
	}
	var flags, pos []string
	rest := argv[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			if cmd.Name == "log" { // log REV… -- PATH…: the paths stay separate
				pos = append(pos, rest[j:]...)
			} else {
				pos = append(pos, rest[j+1:]...)
			}
			j = len(rest)
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && !strings.Contains(a, "=") && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
		default:
			pos = append(pos, a)
		}
	}
	out := append(append([]string{}, argv[:i+1]...), flags...)
	if len(pos) > 0 {
		out = append(append(out, "--"), pos...)
	}
	return out
}

// gitFlags writes the options git spells in ways the flag parser does
// not read as flags it knows: --color alone (always), --no-color, and a
// count as -5 or -n5 for commands with --max-count.
func gitFlags(app *cli.App, argv []string) []string {
	out := make([]string, 0, len(argv))
	var cmd *cli.Command
	skip := false
	for i, a := range argv {
		if a == "--" {
			return append(out, argv[i:]...)
		}
		if skip {
			skip = false
			continue
		}
		if i > 0 && isValueOf(app, cmd, argv[i-1]) { // -n -3: the value is -3, as typed
			out = append(out, a)
			continue
		}
		// gh's --json FIELD,…: --json=FIELDS, or --json and a word that
		// lists fields of the command's output (see jsonFieldsArg).
		if cmd != nil && strings.HasPrefix(a, "--json=") && !slices.Contains([]string{"--json=true", "--json=false"}, a) {
			out = append(out, "--json", "--json-fields="+strings.TrimPrefix(a, "--json="))
			continue
		}
		if cmd != nil && a == "--json" && i+1 < len(argv) && jsonFieldsArg(cmd.Name, argv[i+1]) {
			out = append(out, "--json", "--json-fields="+argv[i+1])
			skip = true
			continue
		}
		switch {
		case a == "--color":
			a = "--color=always"
		case a == "--no-color":
			a = "--color=never"
		case cmd == nil && !strings.HasPrefix(a, "-"):
			cmd = app.Command(a)
		case cmd != nil && hasFlag(cmd.Flags, "max-count") && isCount(a):
			a = "--max-count=" + strings.TrimPrefix(strings.TrimPrefix(a, "-"), "n")
		}
		out = append(out, a)
	}
	return out
}

// isValueOf reports whether prev is an option that takes the next
// argument as its value.
func isValueOf(app *cli.App, cmd *cli.Command, prev string) bool {
	if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") {
		return false
	}
	if cmd != nil {
		return takesValue(cmd.Flags, prev)
	}
	return takesValue(app.Flags, prev)
}

// isCount is true for -5 and -n5, git's ways to write a count.
func isCount(a string) bool {
	n, ok := strings.CutPrefix(a, "-")
	n = strings.TrimPrefix(n, "n")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

func hasFlag(flags []cli.Flag, name string) bool {
	return slices.ContainsFunc(flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
}

func takesValue(flags []cli.Flag, arg string) bool {
	f := findFlag(flags, arg)
	_, isBool := f.(*cli.BoolFlag)
	return f != nil && !isBool
}
