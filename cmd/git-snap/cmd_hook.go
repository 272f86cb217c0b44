package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdHook(e *env) *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "record an agent's hook call (run by the agent, not by you)",
		ArgsUsage: "claude-code|codex|git [ARGS…]",
		Description: `Called by an agent's hooks (see git snap install): reads the hook payload on stdin,
and snapshots the session it names from the lines its transcript gained since the last
call. It is passive: it prints nothing, never blocks the agent, and exits 0 even when
something fails, logging to .git/snap/hook.log instead. git snap hook git post-commit
marks the sessions active in this work tree with the new commit.

Examples:
   echo "$PAYLOAD" | git snap hook claude-code
   git snap hook codex '{"type":"agent-turn-complete","thread-id":"019d…"}'`,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("hook needs the agent: claude-code, codex or git")
			}
			e.runHook(c, c.Args().First(), c.Args().Tail())
			return nil // passive: failures are logged, never reported to the agent
		},
	}
}

// runHook does the work and logs what went wrong.
func (e *env) runHook(c *cli.Context, name string, args []string) {
	ctx, cancel := context.WithTimeout(c.Context, 20*time.Second)
	defer cancel()
	stdin := []byte{}
	if name != "git" {
		stdin, _ = io.ReadAll(io.LimitReader(e.stdin, 64<<20))
	}
	log := func(err error) {
		if err != nil {
			e.hookLog(c, name, err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			log(fmt.Errorf("internal error: %v", r))
		}
	}()
	if name == "git" {
		log(e.hookGit(ctx, c, args))
		return
	}
	a, err := agent.Lookup(name, e.agentEnv())
	if err != nil {
		log(err)
		return
	}
	p, err := a.Decode(stdin, args)
	if err != nil {
		log(err)
		return
	}
	if p.CWD != "" && c.String("C") == "" {
		e.dir = p.CWD // the agent's project, wherever the hook runs
	}
	s, cfg, err := e.openStore(c)
	if err != nil {
		log(err)
		return
	}
	defer s.Close()
	in := agent.Ingest{Store: s, Adapter: a, Limits: snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes}, MaxFileBytes: cfg.Limits.MaxFileBytes, MaxReadBytes: int64(cfg.Limits.MaxReadBytes)}
	if wt := s.Paths().WorkTree; wt != "" {
		in.WorkTree, in.Changed = wt, agent.GitChanged(wt)
	}
	o := gitstore.SaveOptions{}
	if cfg.RecordCode() {
		if code, err := e.codeState(ctx, s); err == nil && !code.Commit.IsZero() {
			o.Code, o.Dirty = code.Commit.String(), code.Dirty
		}
	}
	entry, added, err := in.Run(ctx, p, o)
	if err == nil && added {
		_, err = s.ApplyRetention(ctx, p.SessionID, entry.Header.Seq, retention(cfg))
	}
	log(err)
}

// hookGit marks the sessions at work in this work tree with the commit
// just made (see agent.PostCommit).
func (e *env) hookGit(ctx context.Context, c *cli.Context, args []string) error {
	if len(args) == 0 || args[0] != "post-commit" {
		return fmt.Errorf("git snap hook git takes post-commit, not %q", strings.Join(args, " "))
	}
	s, _, err := e.openStore(c)
	if err != nil {
		return err
	}
	defer s.Close()
	code, err := e.codeState(ctx, s)
	if err != nil || code.Commit.IsZero() {
		return err
	}
	pc := agent.PostCommit{Commit: code.Commit.String(), Dirty: code.Dirty, WorkTree: s.Paths().WorkTree, Now: e.now()}
	_, err = pc.Mark(ctx, s)
	return err
}

// Bounds of hook.log: a line (an error can quote a whole payload), and
// the file, which is moved to hook.log.1 when a line would take it past.
const (
	hookLogMaxLine  = 2 << 10
	hookLogMaxBytes = 1 << 20
)

// hookLog appends a failure to .git/snap/hook.log, or to stderr when
// there is no repository to log in.
func (e *env) hookLog(c *cli.Context, name string, err error) {
	line := hookLogLine(fmt.Sprintf("%s hook %s: %v", time.Now().UTC().Format(time.RFC3339), name, err))
	if p, perr := e.storePaths(c); perr == nil && appendLine(filepath.Join(p.CommonDir, "snap", "hook.log"), line) == nil {
		return
	}
	fmt.Fprint(e.stderr, "git-snap: "+line)
}

// hookLogLine makes one log line of a message: on one line, cut to
// hookLogMaxLine bytes (on a character boundary) with what was cut said.
func hookLogLine(msg string) string {
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "\r", " "), "\n", " ")
	if len(msg) > hookLogMaxLine {
		cut := hookLogMaxLine - 40
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes cut)", msg[:cut], len(msg)-cut)
	}
	return msg + "\n"
}

// appendLine appends a line to a log file, making its folder if needed;
// a file that would grow past hookLogMaxBytes is first moved to
// <path>.1, replacing the one before.
func appendLine(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > hookLogMaxBytes {
		if err := os.Rename(path, path+".1"); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
