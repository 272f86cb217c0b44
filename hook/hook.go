// Package hook handles one call of git-snap's hook, as made by an agent
// or by git (see Run). It reads the payload from stdin, opens the
// repository that the payload names through the library's public API
// (package gitsnap), records what was added to the transcript
// (Repository.RecordHook) or marks git's commit, and writes a line to
// hook.log. A hook call is passive: it never fails the agent, which must
// not be held up; errors are logged instead.
//
// Both programs that record hook calls use this package: git snap hook,
// and git-snap-hook, the lightweight program run by the hooks in
// personal settings (docs/design.md §7). The programs handle the
// process itself (flags, environment, starting a detached follow-up
// call); this package reads no environment variables.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/hooklog"
)

// Timeout bounds a hook call, because the agent waits for it.
const Timeout = 20 * time.Second

// Budget is how long a call keeps reading a long transcript in steps
// (as on the first call for a long session). The next call continues
// from where it stopped, so the agent, which waits, is not held up until
// the timeout.
const Budget = 8 * time.Second

// FollowUpVar is the environment variable that marks the follow-up call
// that a hook call starts in a detached process (see
// Call.StartDetached). Its value is the size of the transcript when the
// first call returned. The program that runs the follow-up call sets
// Call.FollowUp, and sets Call.FollowUpFrom from the value. The name is
// older than the term "follow-up call", but OpenCode plugins installed
// by earlier versions check it, so it cannot change.
const FollowUpVar = "GIT_SNAP_HOOK_LATE"

// followUpWait bounds how long a follow-up call waits for the agent's
// last lines.
const followUpWait = 15 * time.Second

// followUpTimeout bounds a follow-up call, which waits for the agent's
// last lines or for the agent to exit, and then may run its export. No
// agent waits for a follow-up call.
const followUpTimeout = 2 * time.Minute

// ExportEvent is the event name, used in the snapshot's label and in
// hook.log, of the follow-up call that records what an agent's export
// command printed after the agent exited (agent.Exporter). Unlike
// follow-up calls that only add a run's last lines, this call is logged,
// so that doctor, and anyone waiting for it, can see that it happened.
const ExportEvent = "export"

// Call describes one hook call, as known to the process that makes it.
type Call struct {
	// Agent is a name from agent.Names(), or "git".
	Agent string
	// Args are the arguments after the agent's name (an event name when
	// the agent sends none, Codex's payload, or git's hook name).
	Args []string
	// Stdin holds the agent's payload, or git's rewritten commits.
	Stdin io.Reader
	// Dir is the directory the call runs in: -C's directory, or else the
	// process's working directory. Unless DirGiven is set, the payload's
	// cwd names the project instead.
	Dir string
	// DirGiven reports whether -C or --store said where to record.
	DirGiven bool
	// Store is the repository that snapshots are saved to (--store,
	// relative to Dir), or "" for the repository the project is in.
	Store string
	// Repo configures how the repository is opened: the user's settings,
	// git's environment, where warnings go, and the time of new
	// snapshots.
	Repo gitsnap.Options
	// AgentEnv tells where agents keep their files.
	AgentEnv agent.Env
	// FollowUp reports whether this process is the follow-up call that a
	// first call started with StartDetached.
	FollowUp bool
	// FollowUpFrom is, for a follow-up call, the transcript's size in
	// bytes when the first call returned. The lines the agent writes
	// after that call start beyond this offset. (A resumed run appends to
	// a transcript that already ends the way a run ends.)
	FollowUpFrom int64
	// StartDetached starts the same call again as a follow-up call, in a
	// detached process, with args (the agent, then Args), stdin, and this
	// process's environment plus extra. It is nil when no process can be
	// started (such as in a test that runs the call in the same process).
	StartDetached func(args []string, stdin []byte, extra ...string) error
	// Stderr receives failures when there is no repository to log them in.
	Stderr io.Writer
	// Export, in a follow-up call, runs an agent's export command in dir
	// once the process pid has exited (agent.Exporter). It returns the
	// path of a file named name holding the command's output, and a
	// function that removes the file. ok is false when the process did
	// not exit. Export is nil when no process can be run, and then no
	// export is recorded.
	Export func(ctx context.Context, pid int, dir, name string, command []string) (path string, done func(), ok bool, err error)
}

// call is a Call in progress, with what it has read and opened so far.
type call struct {
	Call
	payload *agent.Payload // cached once read, because stdin can be read only once
	paths   gitstore.Paths // where to log; zero until the repository is found
	ok      bool
}

// Run records the hook call c. Errors are logged to hook.log, never
// returned, so that the agent is not held up by them.
func Run(ctx context.Context, c Call) {
	start := time.Now()
	timeout := Timeout
	if c.FollowUp {
		timeout = followUpTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	k := &call{Call: c, ok: true}
	defer func() {
		if r := recover(); r != nil {
			k.log(fmt.Errorf("internal error: %v", r))
		}
		k.logCall(start)
	}()
	dir, err := k.dir()
	paths, perr := k.pathsAt(dir)
	k.paths = paths // so that a payload that cannot be read is also logged in the repository
	if err != nil || perr != nil {
		k.log(errors.Join(err, perr))
		return
	}
	repo, err := gitsnap.OpenPaths(ctx, paths, k.Repo)
	if err != nil {
		k.log(err)
		return
	}
	defer repo.Close()
	if k.Agent == "git" {
		k.log(k.git(ctx, repo))
		return
	}
	k.log(k.record(ctx, repo))
}

// pathsAt finds the repository that snapshots are saved to: Store when
// set (relative to dir), or else the repository that dir is in.
func (k *call) pathsAt(dir string) (gitstore.Paths, error) {
	if k.Store == "" {
		return gitstore.Discover(dir, k.Repo.GitEnv)
	}
	store := k.Store
	if !filepath.IsAbs(store) {
		store = filepath.Join(dir, store)
	}
	switch fi, err := os.Stat(store); {
	case err != nil:
		return gitstore.Paths{}, fmt.Errorf("--store %s: %w", k.Store, errors.Unwrap(err))
	case !fi.IsDir():
		return gitstore.Paths{}, fmt.Errorf("--store %s: not a directory", k.Store)
	}
	return gitstore.Discover(store, k.Repo.GitEnv)
}

// dir returns the directory of the project the hook call is about: the
// payload's cwd, unless -C or --store gave a directory.
func (k *call) dir() (string, error) {
	if k.Agent == "git" {
		return k.Dir, nil
	}
	p, err := k.decode()
	if err != nil || p.CWD == "" || k.DirGiven {
		return k.Dir, err
	}
	return p.CWD, nil // the agent's project, wherever the hook runs
}

// decode reads and decodes the agent's payload. It caches the result,
// because stdin can be read only once.
func (k *call) decode() (agent.Payload, error) {
	if k.payload != nil {
		return *k.payload, nil
	}
	a, err := agent.Lookup(k.Agent, k.AgentEnv)
	if err != nil {
		return agent.Payload{}, err
	}
	stdin, err := io.ReadAll(io.LimitReader(k.Stdin, 64<<20))
	if err != nil {
		return agent.Payload{}, fmt.Errorf("read the payload: %w", err)
	}
	p, err := a.Decode(stdin, k.Args)
	if err != nil {
		return agent.Payload{}, err
	}
	k.payload = &p
	return p, nil
}

// record ingests what was added to the agent's transcript, along with
// the code state and the changed files, scanning the work tree at most
// once.
func (k *call) record(ctx context.Context, repo *gitsnap.Repository) error {
	a, err := agent.Lookup(k.Agent, k.AgentEnv)
	if err != nil {
		return err
	}
	p, err := k.decode()
	if err != nil {
		return err
	}
	a, p, note, err := agent.Owner(a, p, k.AgentEnv)
	if err != nil {
		return err
	}
	if note != "" { // another agent's call: recorded as its
		k.logLine(errors.New(note))
		k.Agent, k.payload = a.Name(), &p
	}
	dir, _ := k.dir()
	writesLater, _ := a.(agent.LateWriter)
	pid, command, exports := 0, []string(nil), false
	if ex, ok := a.(agent.Exporter); ok {
		pid, command, exports = ex.ExportAfter(p)
	}
	switch {
	case k.FollowUp && writesLater != nil:
		waitForRunEnd(ctx, writesLater, p.TranscriptPath, k.FollowUpFrom)
		if _, err := os.Stat(p.TranscriptPath); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("transcript %s still does not exist %s after the %s call; nothing was recorded", p.TranscriptPath, followUpWait, p.Event)
		}
	case k.FollowUp && exports:
		if k.Export == nil {
			return nil
		}
		path, done, exited, err := k.Export(ctx, pid, p.CWD, p.SessionID+".json", command)
		if err != nil {
			return fmt.Errorf("record the session as the agent left it: %w", err)
		}
		if !exited {
			return nil // the agent is still running; the next call records it
		}
		defer done()
		p.TranscriptPath, p.Event = path, ExportEvent
		k.payload.Event = ExportEvent // the event name hook.log uses for the call
	}
	_, _, err = repo.RecordHook(ctx, a, p, gitsnap.HookOptions{Dir: dir, Budget: Budget,
		Warn: func(msg string) { k.logLine(errors.New(msg)) }})
	if err == nil && !k.FollowUp && k.StartDetached != nil && (writesLater != nil && writesLater.WritesAfter(p) || exports) {
		err = k.startFollowUp(p)
	}
	return err
}

// startFollowUp starts a follow-up call for p in a detached process. The
// follow-up call records p again once the agent has written the lines it
// writes after the hook call returns (agent.LateWriter), or once the
// agent has exited (agent.Exporter). The hook returns immediately, the
// agent writes its last lines and exits, and the follow-up call, which
// waited for them, adds them to the session. The follow-up call logs
// only a failure, or the export it recorded.
func (k *call) startFollowUp(p agent.Payload) error {
	stdin, err := json.Marshal(p.Raw)
	if err != nil {
		return fmt.Errorf("encode the payload for the follow-up call: %w", err)
	}
	size := int64(0)
	if fi, err := os.Stat(p.TranscriptPath); err == nil {
		size = fi.Size()
	}
	if err := k.StartDetached(append([]string{k.Agent}, k.Args...), stdin, FollowUpVar+"="+strconv.FormatInt(size, 10)); err != nil {
		return fmt.Errorf("record the lines written after the %s hook call: %w", p.Event, err)
	}
	return nil
}

// waitForRunEnd waits until the transcript has grown beyond after and
// its last record is the last one the agent writes in a run, or until
// followUpWait has passed or ctx is done. Whatever is in the transcript
// by then is recorded. (Without the size check, the follow-up call of a
// resumed run mistook the end of the previous run for the end of its
// own, before the agent had written this run's lines.)
func waitForRunEnd(ctx context.Context, writer agent.LateWriter, transcript string, after int64) {
	if transcript == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, followUpWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if rec, size, ok := lastRecord(transcript); ok && size > after && writer.Ended(rec) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// lastRecord reads the last complete line of a JSONL file as JSON, and
// the file's size.
func lastRecord(path string) (any, int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false
	}
	const tail = 256 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, false
	}
	buf = bytes.TrimRight(buf, "\r\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	var v any
	if json.Unmarshal(buf, &v) != nil {
		// A transcript that is one document (Cline's) ends in no record
		// of its own line: the document is its last record.
		whole, err := io.ReadAll(io.LimitReader(f, 64<<20+1))
		if err != nil || len(whole) > 64<<20 || json.Unmarshal(whole, &v) != nil {
			return nil, 0, false
		}
	}
	return v, fi.Size(), true
}

// git marks the sessions active in this work tree with the commit just
// made (see capture.PostCommit), or records the commits that an amend or
// a rebase rewrote.
func (k *call) git(ctx context.Context, repo *gitsnap.Repository) error {
	if len(k.Args) > 0 && k.Args[0] == "post-rewrite" {
		return k.rewrite(repo)
	}
	if len(k.Args) == 0 || k.Args[0] != "post-commit" {
		return fmt.Errorf("git snap hook git takes post-commit or post-rewrite, not %q", strings.Join(k.Args, " "))
	}
	now := time.Now
	if k.Repo.Now != nil {
		now = k.Repo.Now
	}
	_, err := repo.MarkCommit(ctx, k.Dir, now())
	return err
}

// rewrite records the commits that an amend or a rebase rewrote, as
// git's post-rewrite hook passes them on stdin, so that snapshots saved
// at the old commits stay linked to the new ones.
func (k *call) rewrite(repo *gitsnap.Repository) error {
	data, err := io.ReadAll(io.LimitReader(k.Stdin, 64<<20))
	if err != nil {
		return fmt.Errorf("read the rewritten commits: %w", err)
	}
	return repo.NoteRewrites(capture.ParseRewrites(data))
}

// log logs err, if it is not nil, and marks the call as failed.
func (k *call) log(err error) {
	if err != nil {
		k.ok = false
		k.logLine(err)
	}
}

// logLine appends a failure to .git/snap/hook.log, or to Stderr when
// there is no repository to log in.
func (k *call) logLine(err error) {
	line := hooklog.Line(fmt.Sprintf("%s hook %s: %v", time.Now().UTC().Format(time.RFC3339), k.Agent, err))
	if k.paths.CommonDir != "" && hooklog.Append(filepath.Join(k.paths.CommonDir, "snap", "hook.log"), line) == nil {
		return
	}
	if k.Stderr != nil {
		fmt.Fprint(k.Stderr, "git-snap: "+line)
	}
}

// logCall records in hook.log that a call was made, when, and how long
// it took, so that doctor can show an agent that stopped calling.
func (k *call) logCall(start time.Time) {
	if k.paths.CommonDir == "" || k.FollowUp && k.ok && (k.payload == nil || k.payload.Event != ExportEvent) {
		return // a follow-up call logs only its failure, or the export it recorded
	}
	event := "post-commit"
	if k.Agent == "git" && len(k.Args) > 0 {
		event = k.Args[0]
	}
	if k.Agent != "git" {
		event = ""
		if k.payload != nil {
			event = k.payload.Event
		}
	}
	line := hooklog.CallLine(hooklog.Call{Time: start, Agent: k.Agent, Event: event, Latency: time.Since(start), OK: k.ok})
	_ = hooklog.Append(filepath.Join(k.paths.CommonDir, "snap", "hook.log"), line) // best effort: the call's work is already done
}
