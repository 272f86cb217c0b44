package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"

	"github.com/git-snap/git-snap/hooklog"

	"github.com/git-snap/git-snap/capture"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdHook(e *env) *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "record an agent's hook call (run by the agent, not by you)",
		ArgsUsage: strings.Join(agent.Names(), "|") + "|git [ARGS…]",
		Description: fmt.Sprintf(`Called by an agent's hooks (see git snap install): reads the hook payload on stdin,
and snapshots the session it names from the lines its transcript gained since the last
call. It is passive: it prints nothing, never blocks the agent, and exits 0 even when
something fails, logging to .git/snap/hook.log instead. git snap hook git post-commit
marks the sessions active in this work tree with the new commit; git snap hook git
post-rewrite records the commits an amend or a rebase rewrote (git's pairs on stdin).

The agents: %s
(the hooks git snap install writes name the event where the agent sends none).

Examples:
   echo "$PAYLOAD" | git snap hook claude-code
   echo "$PAYLOAD" | git snap hook gemini
   git snap hook codex '{"type":"agent-turn-complete","thread-id":"019d…"}'`, strings.Join(agent.Names(), ", ")),
		SkipFlagParsing: true,
		Action:          helpFirst(action(e, shape{max: -1, open: withNothing}, parseHook, runHook)),
	}
}

// helpFirst shows the command's help for -h or --help as its first
// argument, which a command that parses no flags would take as its own.
func helpFirst(next cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if a := c.Args().First(); a == "-h" || a == "--help" {
			cli.HelpPrinter(c.App.Writer, cli.CommandHelpTemplate, c.Command)
			return nil
		}
		return next(c)
	}
}

type hookOptions struct {
	Agent string   // an agent.Names() name, or git
	Args  []string // after the agent's name
}

func parseHook(c *cli.Context) (hookOptions, error) {
	if c.NArg() == 0 {
		return hookOptions{}, usagef("hook needs the agent: %s or git", strings.Join(agent.Names(), ", "))
	}
	return hookOptions{Agent: c.Args().First(), Args: c.Args().Tail()}, nil
}

// hookTimeout bounds a hook call: an agent waits for it.
const hookTimeout = 20 * time.Second

// hookBudget is how long a call keeps reading a long transcript in steps
// (the first call on a long session): the next call goes on from there,
// and the agent, which waits, is not held up to the timeout.
const hookBudget = 8 * time.Second

// stepMemoryLimit is the heap a command reading a transcript in steps
// has the collector aim under: a step leaves garbage the next one need
// not add to (docs/design.md §7: any command stays under 100 MB).
const stepMemoryLimit = 60 << 20

// searchMemoryLimit is the heap a search has the collector aim under: an
// index build keeps one segment's text and postings live at a time, under
// 80 MB, and GOGC alone let the heap grow to twice that.
const searchMemoryLimit = 80 << 20

// readMemoryLimit is the heap a command that reads whole sessions (show,
// stats, export, view) has the collector aim under: they read a record
// and write a turn at a time, and keep of a long session only its
// outline (tens of bytes a record), but GOGC alone let the heap grow to
// twice its peak, garbage included (docs/design.md §8).
const readMemoryLimit = 60 << 20

// limitMemory has the collector aim under limit bytes of heap, unless
// GOMEMLIMIT set a limit.
func limitMemory(limit int64) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(limit)
	}
}

// runHook records one hook call. It is passive: what goes wrong is
// logged, never reported to the agent, which must not be held up.
func runHook(ctx context.Context, d *deps, o hookOptions) error {
	start := time.Now()
	limitMemory(stepMemoryLimit)
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	var paths gitstore.Paths // where to log; zero until a store is open
	ok := true
	log := func(err error) {
		if err != nil {
			ok = false
			hookLog(d, paths, o.Agent, err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			log(fmt.Errorf("internal error: %v", r))
		}
		hookCallLog(paths, o, d.payload, start, ok, d.getenv != nil && d.getenv(lateVar) != "")
	}()
	dir, err := hookDir(d, o)
	paths, _ = d.pathsAt(dir) // a payload that cannot be read is logged in the repository too
	if err != nil {
		log(err)
		return nil
	}
	s, cfg, err := d.openAt(ctx, dir)
	if err != nil {
		log(err)
		return nil
	}
	defer s.Close()
	if o.Agent == "git" {
		log(hookGit(ctx, d, s, o.Args))
		return nil
	}
	log(hookAgent(ctx, d, s, cfg, o))
	return nil
}

// hookDir is the directory of the project the hook call is about: the
// payload's cwd, unless -C or --store said where.
func hookDir(d *deps, o hookOptions) (string, error) {
	if o.Agent == "git" {
		return d.workDir, nil
	}
	p, err := decodeHook(d, o)
	if err != nil || p.CWD == "" || d.dirGiven {
		return d.workDir, err
	}
	return p.CWD, nil // the agent's project, wherever the hook runs
}

// decodeHook reads the agent's payload, once: stdin can be read once.
func decodeHook(d *deps, o hookOptions) (agent.Payload, error) {
	if d.payload != nil {
		return *d.payload, nil
	}
	a, err := agent.Lookup(o.Agent, d.agentEnv)
	if err != nil {
		return agent.Payload{}, err
	}
	stdin, err := io.ReadAll(io.LimitReader(d.in, 64<<20))
	if err != nil {
		return agent.Payload{}, fmt.Errorf("read the payload: %w", err)
	}
	p, err := a.Decode(stdin, o.Args)
	if err != nil {
		return agent.Payload{}, err
	}
	d.payload = &p
	return p, nil
}

// hookAgent ingests what the agent's transcript gained, with the code
// state and changed files from at most one scan of the work tree.
func hookAgent(ctx context.Context, d *deps, s *gitstore.Store, cfg config.Config, o hookOptions) error {
	a, err := agent.Lookup(o.Agent, d.agentEnv)
	if err != nil {
		return err
	}
	p, err := decodeHook(d, o)
	if err != nil {
		return err
	}
	dir, _ := hookDir(d, o)
	late, _ := a.(agent.LateWriter)
	following := late != nil && d.getenv != nil && d.getenv(lateVar) != ""
	if following {
		waitEnded(ctx, late, p.TranscriptPath)
	}
	repo := gitsnap.Wrap(s, cfg, d.gitEnv)
	_, _, err = repo.RecordHook(ctx, a, p, gitsnap.HookOptions{Dir: dir, Budget: hookBudget,
		Warn: func(msg string) { hookLog(d, s.Paths(), o.Agent, errors.New(msg)) }})
	if err == nil && late != nil && !following && d.later != nil && late.WritesAfter(p) {
		err = lateHook(d, o, p)
	}
	return err
}

// lateVar marks the git snap hook that lateHook starts.
const lateVar = "GIT_SNAP_HOOK_LATE"

// lateWait bounds how long that call waits for the agent's last lines.
const lateWait = 15 * time.Second

// lateHook records the call p again, in a git-snap apart from this one,
// once the agent has written what it writes after the call returns
// (agent.LateWriter): the hook returns at once, the agent writes its
// last lines and exits, and the call apart, which waited for them, adds
// them to the session. It logs only a failure, as one line apart.
func lateHook(d *deps, o hookOptions, p agent.Payload) error {
	stdin, err := json.Marshal(p.Raw)
	if err != nil {
		return fmt.Errorf("the payload again, for the lines after the call: %w", err)
	}
	args := append([]string{"hook", o.Agent}, o.Args...)
	if d.dirGiven { // else the payload's cwd says where, as it did here
		args = append([]string{"-C", d.workDir}, args...)
	}
	if err := d.later(args, stdin, lateVar+"=1"); err != nil {
		return fmt.Errorf("record the lines written after the %s hook call: %w", p.Event, err)
	}
	return nil
}

// waitEnded waits until the transcript's last record is the last the
// agent writes in a run, or lateWait has passed, or ctx ends: what is
// there by then is recorded.
func waitEnded(ctx context.Context, late agent.LateWriter, transcript string) {
	if transcript == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, lateWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if rec, ok := lastRecord(transcript); ok && late.Ended(rec) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// lastRecord reads the last complete line of a JSONL file as JSON.
func lastRecord(path string) (any, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	const tail = 256 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	buf = bytes.TrimRight(buf, "\r\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	var v any
	if json.Unmarshal(buf, &v) != nil {
		return nil, false
	}
	return v, true
}

// hookGit marks the sessions at work in this work tree with the commit
// just made (see capture.PostCommit).
func hookGit(ctx context.Context, d *deps, s *gitstore.Store, args []string) error {
	if len(args) > 0 && args[0] == "post-rewrite" {
		return hookRewrite(d, s)
	}
	if len(args) == 0 || args[0] != "post-commit" {
		return fmt.Errorf("git snap hook git takes post-commit or post-rewrite, not %q", strings.Join(args, " "))
	}
	code, err := gitsnap.CodeState(ctx, s, d.workDir, d.gitEnv, false)
	if err != nil || code.Commit.IsZero() {
		return err
	}
	pc := capture.PostCommit{Commit: code.Commit.String(), Dirty: code.Dirty, WorkTree: s.Paths().WorkTree, Now: d.now()}
	_, err = pc.Mark(ctx, s)
	return err
}

// hookRewrite records the commits an amend or a rebase rewrote, as
// git's post-rewrite hook gives them on stdin, so that snapshots taken
// at the old commits stay linked to the new ones.
func hookRewrite(d *deps, s *gitstore.Store) error {
	data, err := io.ReadAll(io.LimitReader(d.in, 64<<20))
	if err != nil {
		return fmt.Errorf("read the rewritten commits: %w", err)
	}
	return s.NoteRewrites(capture.ParseRewrites(data))
}

// hookLog appends a failure to .git/snap/hook.log, or to stderr when
// there is no repository to log in.
func hookLog(d *deps, p gitstore.Paths, name string, err error) {
	line := hooklog.Line(fmt.Sprintf("%s hook %s: %v", time.Now().UTC().Format(time.RFC3339), name, err))
	if p.CommonDir != "" && hooklog.Append(filepath.Join(p.CommonDir, "snap", "hook.log"), line) == nil {
		return
	}
	fmt.Fprint(d.errOut, "git-snap: "+line)
}

// hookCallLog records in hook.log that a call was made, when, and how
// long it took, for doctor: an agent that stopped calling shows.
func hookCallLog(p gitstore.Paths, o hookOptions, payload *agent.Payload, start time.Time, ok bool, late bool) {
	if p.CommonDir == "" || late && ok {
		return // a call apart (lateHook) logs only its failure
	}
	event := "post-commit"
	if o.Agent == "git" && len(o.Args) > 0 {
		event = o.Args[0]
	}
	if o.Agent != "git" {
		event = ""
		if payload != nil {
			event = payload.Event
		}
	}
	line := hooklog.CallLine(hooklog.Call{Time: start, Agent: o.Agent, Event: event, Latency: time.Since(start), OK: ok})
	_ = hooklog.Append(filepath.Join(p.CommonDir, "snap", "hook.log"), line) // best effort: the call itself is done
}
