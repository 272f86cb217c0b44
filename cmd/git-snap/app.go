package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
)

// env is what a command may touch of the world: no globals, so that
// tests run commands in process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dir            string // working directory
	terminal       bool   // stdout is a terminal
	getenv         func(string) string
	notFound       string // an unknown command name, for the error
}

func (e *env) run(ctx context.Context, args []string) int {
	app := e.newApp()
	args = reorderArgs(app, args)
	err := app.RunContext(ctx, append([]string{"git-snap"}, args...))
	if err == nil && e.notFound != "" {
		err = usagef("%q is not a git-snap command; see git snap --help", e.notFound)
	}
	return e.report(err)
}

func (e *env) newApp() *cli.App {
	app := &cli.App{
		Name:                 "git-snap",
		Usage:                "version AI agents' state in git",
		UsageText:            "git snap [-C DIR] [--store DIR] <command> [options] [args]",
		Description:          "Snapshots are canonical JSON committed to refs/snap/<session>, one commit per snapshot;\ncheckpoints are tags snap/<session>/<name>. Your work tree, index and HEAD are never touched.",
		Reader:               e.stdin,
		Writer:               e.stdout,
		ErrWriter:            e.stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR`"},
			&cli.StringFlag{Name: "store", Usage: "keep snapshots in the repository at `DIR` (a store made by init --bare); also $GIT_SNAP_DIR"},
		}, outputFlags()...),
		Commands: []*cli.Command{
			cmdInit(e), cmdSave(e), cmdLog(e), cmdShow(e), cmdDiff(e), cmdRestore(e),
			cmdRollback(e), cmdCheckpoint(e), cmdExport(e), cmdImport(e), cmdSessions(e),
			cmdStats(e), cmdScan(e), cmdHook(e), cmdInstall(e, true), cmdInstall(e, false),
			cmdRecord(e), cmdReplay(e), cmdTrace(e), cmdRewind(e), cmdPush(e), cmdFetch(e), cmdPull(e),
			cmdPrune(e), cmdDrop(e), cmdGC(e), cmdDemo(e),
		},
		CommandNotFound: func(_ *cli.Context, name string) { e.notFound = name },
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usagef("%v", err)
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return usagef("%s: %v", c.Command.Name, err)
		}
		switch cmd.Name {
		case "log", "show", "diff", "sessions", "demo":
			cmd.Flags = append(cmd.Flags, outputFlags()...)
		}
	}
	return app
}

// outputFlags are accepted before the command and, by reading commands,
// after it too (git snap log --color=always).
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-pager", Usage: "do not page output"},
		&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour output: auto, always or never"},
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

// usageError is a mistake in how the command was called: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// UserError marks the error as the user's to correct.
func (e *usageError) UserError() {}

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// report prints err for a person and returns the exit status.
func (e *env) report(err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(e.stderr, "git-snap: interrupted; nothing more was written")
		return 130
	}
	code := exitCode(err)
	fmt.Fprintf(e.stderr, "git-snap: %v\n", err)
	if hint := hintFor(err); hint != "" {
		fmt.Fprintf(e.stderr, "hint: %s\n", hint)
	}
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
		rev    *gitstore.RevisionError
		absent *gitstore.NotFoundError
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
	var usage *usageError
	if errors.As(err, &usage) {
		return "see git snap <command> --help"
	}
	return ""
}

// storeAction makes the action of a command that works on the store: it
// checks the number of arguments, opens the store, runs, and closes it.
func (e *env) storeAction(minArgs, maxArgs int, run func(c *cli.Context, s *gitstore.Store, cfg config.Config) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := args(c, minArgs, maxArgs); err != nil {
			return err
		}
		if err := checkColorFlag(c); err != nil {
			return err
		}
		s, cfg, err := e.openStore(c)
		if err != nil {
			return err
		}
		defer s.Close()
		return run(c, s, cfg)
	}
}

// openStore opens the store the command works on, with its config.
func (e *env) openStore(c *cli.Context) (*gitstore.Store, config.Config, error) {
	paths, err := e.storePaths(c)
	if err != nil {
		return nil, config.Config{}, err
	}
	cfg, err := config.Load(config.SourcesFor(e.userConfigDir(), paths.WorkTree, paths.CommonDir))
	if err != nil {
		return nil, config.Config{}, err
	}
	redactor, err := redact.New(cfg.Redact)
	if err != nil {
		return nil, config.Config{}, &config.Error{File: "redact", Err: err}
	}
	s, err := gitstore.OpenPaths(c.Context, paths, gitstore.Options{
		RefPrefix: cfg.Refs.Prefix,
		Warnf:     func(f string, a ...any) { fmt.Fprintf(e.stderr, "git-snap: warning: "+f+"\n", a...) },
		Now:       e.now,
		Redactor:  redactor,
		Env:       e.gitEnv(),
		View:      agent.ViewMessage,
	})
	return s, cfg, err
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
	store := c.String("store")
	if store == "" {
		store = e.getenv("GIT_SNAP_DIR")
	}
	if store != "" {
		if !filepath.IsAbs(store) {
			store = filepath.Join(e.workDir(c), store)
		}
		return gitstore.Discover(store, e.gitEnv())
	}
	return gitstore.Discover(e.workDir(c), e.gitEnv())
}

// userConfigDir is where the user's settings live: $XDG_CONFIG_HOME, or
// ~/.config as the XDG base directory specification says.
func (e *env) userConfigDir() string {
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home := e.getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// now is the time of new snapshots: $GIT_COMMITTER_DATE when set, as git
// does, so that runs can be reproduced.
func (e *env) now() time.Time {
	if t, ok := parseGitDate(e.getenv("GIT_COMMITTER_DATE")); ok {
		return t
	}
	return time.Now()
}

// session picks the session a command works on: the flag, then
// $GIT_SNAP_SESSION, then the config.
func (e *env) session(c *cli.Context, cfg config.Config) string {
	if s := c.String("session"); s != "" {
		return s
	}
	if s := e.getenv("GIT_SNAP_SESSION"); s != "" {
		return s
	}
	return cfg.Session
}

// writeOutput writes data to path atomically, or to stdout for "" or -.
func (e *env) writeOutput(path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.dir, path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
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
		return usagef("%s needs %s; see git snap %s --help", c.Command.Name, c.Command.ArgsUsage, c.Command.Name)
	case max >= 0 && n > max:
		return usagef("%s takes at most %d argument(s), got %d: %s", c.Command.Name, max, n, strings.Join(c.Args().Slice(), " "))
	}
	return nil
}

// reorderArgs moves a command's flags before its positional arguments,
// since the flag parser stops at the first positional one and people
// write `git snap diff A B --stat`.
func reorderArgs(app *cli.App, argv []string) []string {
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
			pos = append(pos, rest[j+1:]...)
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

func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
