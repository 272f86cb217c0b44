// Package hook is one call of git-snap's hook, as an agent or git makes
// it (Run): the payload read from stdin, the store of the project it
// names opened with its settings, the session recorded from what its
// transcript gained (Record), or git's commit marked, and a line in
// hook.log. A call is passive: it never fails the agent, which must not
// be held up; what goes wrong is logged.
//
// Both programs that record hook calls run it: git snap hook and
// git-snap-hook, the program the hooks of personal settings run, which
// links little else (docs/design.md §7); so the package sits below the
// library's front door (gitsnap), whose RecordHook is Record. The
// process's side (flags, environment, starting a call apart) is the
// programs'; this package reads no environment.
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

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/hooklog"
)

// Timeout bounds a hook call: an agent waits for it.
const Timeout = 20 * time.Second

// Budget is how long a call keeps reading a long transcript in steps
// (the first call on a long session): the next call goes on from there,
// and the agent, which waits, is not held up to the timeout.
const Budget = 8 * time.Second

// LateVar is the environment variable that marks the call apart a call
// starts (see Call.Later): the program that runs it sets Call.Late, and
// Call.LateSize from its value, the size of the transcript when the
// call that started it returned.
const LateVar = "GIT_SNAP_HOOK_LATE"

// lateWait bounds how long the call apart waits for the agent's last
// lines.
const lateWait = 15 * time.Second

// lateTimeout bounds a call apart, which waits for the agent's last
// lines or for it to exit, then may run its export: no agent waits for
// it.
const lateTimeout = 2 * time.Minute

// ExportEvent names the call apart that recorded what an agent's export
// printed after it exited (agent.Exporter), in the snapshot's label and
// in hook.log: unlike the calls apart that only add a run's last lines,
// it is logged, so that doctor and whoever waits on it see that it came.
const ExportEvent = "export"

// Call is one hook call as the process that makes it knows it.
type Call struct {
	// Agent is an agent.Names() name, or git.
	Agent string
	// Args are the arguments after the agent's name (an event where the
	// agent sends none, Codex's payload, git's hook name).
	Args []string
	// Stdin holds the agent's payload, or git's rewritten commits.
	Stdin io.Reader
	// Dir is where the call runs: -C's directory, else the process's.
	// The payload's cwd names the project instead unless DirGiven.
	Dir string
	// DirGiven says -C or --store named where to record.
	DirGiven bool
	// Store is the repository snapshots go to (--store, relative to
	// Dir); "" for the one the project is in.
	Store string
	// Repo is how the store is opened: the user's settings, git's
	// environment, where warnings go, the time of new snapshots.
	Repo config.OpenOptions
	// AgentEnv is where agents keep their files.
	AgentEnv agent.Env
	// Late says this process is the call apart that Later started.
	Late bool
	// LateSize is, for the call apart, the transcript's size in bytes
	// when the call that started it returned: the lines the agent writes
	// after it lie past it. A resumed run appends to a transcript that
	// already ends as a run ends.
	LateSize int64
	// Later starts the same call again in a process apart, with args
	// (the agent, then Args), stdin, and the variables of this process
	// plus extra; nil where no process can be started (a test running
	// the call in process).
	Later func(args []string, stdin []byte, extra ...string) error
	// Stderr receives what fails where there is no repository to log in.
	Stderr io.Writer
	// Export, in the call apart, runs an agent's export command in dir
	// once the process pid has exited (agent.Exporter), and gives a file
	// named name holding what it printed, with the function that removes
	// it; ok is false when the process did not exit. Nil where no process
	// can be run: no export is recorded.
	Export func(ctx context.Context, pid int, dir, name string, command []string) (path string, done func(), ok bool, err error)
}

// call is a Call being run: what it has read and opened so far.
type call struct {
	Call
	payload *agent.Payload // once read: stdin can be read once
	paths   gitstore.Paths // where to log; zero until the repository is found
	ok      bool
}

// Run records the hook call c. What goes wrong is logged to hook.log,
// never returned: the agent must not be held up by it.
func Run(ctx context.Context, c Call) {
	start := time.Now()
	timeout := Timeout
	if c.Late {
		timeout = lateTimeout
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
	k.paths = paths // a payload that cannot be read is logged in the repository too
	if err != nil || perr != nil {
		k.log(errors.Join(err, perr))
		return
	}
	s, cfg, err := config.Open(ctx, paths, k.Repo)
	if err != nil {
		k.log(err)
		return
	}
	defer s.Close()
	if k.Agent == "git" {
		k.log(k.git(ctx, s))
		return
	}
	k.log(k.record(ctx, s, cfg))
}

// pathsAt finds the repository snapshots go to: Store when set
// (relative to dir), else the one dir is in.
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

// dir is the directory of the project the hook call is about: the
// payload's cwd, unless -C or --store said where.
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

// decode reads the agent's payload, once: stdin can be read once.
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

// record ingests what the agent's transcript gained, with the code
// state and changed files from at most one scan of the work tree.
func (k *call) record(ctx context.Context, s *gitstore.Store, cfg config.Config) error {
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
	late, _ := a.(agent.LateWriter)
	pid, command, exports := 0, []string(nil), false
	if ex, ok := a.(agent.Exporter); ok {
		pid, command, exports = ex.ExportAfter(p)
	}
	switch {
	case k.Late && late != nil:
		waitEnded(ctx, late, p.TranscriptPath, k.LateSize)
		if _, err := os.Stat(p.TranscriptPath); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("transcript %s does not exist %s after the %s call: nothing read from it", p.TranscriptPath, lateWait, p.Event)
		}
	case k.Late && exports:
		if k.Export == nil {
			return nil
		}
		path, done, exited, err := k.Export(ctx, pid, p.CWD, p.SessionID+".json", command)
		if err != nil {
			return fmt.Errorf("record the session as the agent left it: %w", err)
		}
		if !exited {
			return nil // still running: the next call records it
		}
		defer done()
		p.TranscriptPath, p.Event = path, ExportEvent
		k.payload.Event = ExportEvent // what hook.log names the call by
	}
	_, _, err = Record(ctx, s, cfg, k.Repo.GitEnv, a, p, Options{Dir: dir, Budget: Budget,
		Warn: func(msg string) { k.logLine(errors.New(msg)) }})
	if err == nil && !k.Late && k.Later != nil && (late != nil && late.WritesAfter(p) || exports) {
		err = k.again(p)
	}
	return err
}

// again records the call p again, in a process apart from this one,
// once the agent has written what it writes after the call returns
// (agent.LateWriter), or has exited (agent.Exporter): the hook returns
// at once, the agent writes its last lines and exits, and the call
// apart, which waited for them, adds them to the session. It logs only
// a failure, as one line apart, or the export it recorded.
func (k *call) again(p agent.Payload) error {
	stdin, err := json.Marshal(p.Raw)
	if err != nil {
		return fmt.Errorf("the payload again, for the lines after the call: %w", err)
	}
	size := int64(0)
	if fi, err := os.Stat(p.TranscriptPath); err == nil {
		size = fi.Size()
	}
	if err := k.Later(append([]string{k.Agent}, k.Args...), stdin, LateVar+"="+strconv.FormatInt(size, 10)); err != nil {
		return fmt.Errorf("record the lines written after the %s hook call: %w", p.Event, err)
	}
	return nil
}

// waitEnded waits until the transcript has grown past after and its
// last record is the last the agent writes in a run, or lateWait has
// passed, or ctx ends: what is there by then is recorded. (Without the
// size, a resumed run's call apart took the end of the run before for
// its own, when the agent had not yet written this run's lines.)
func waitEnded(ctx context.Context, late agent.LateWriter, transcript string, after int64) {
	if transcript == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, lateWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if rec, size, ok := lastRecord(transcript); ok && size > after && late.Ended(rec) {
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

// git marks the sessions at work in this work tree with the commit just
// made (see capture.PostCommit), or records the commits an amend or a
// rebase rewrote.
func (k *call) git(ctx context.Context, s *gitstore.Store) error {
	if len(k.Args) > 0 && k.Args[0] == "post-rewrite" {
		return k.rewrite(s)
	}
	if len(k.Args) == 0 || k.Args[0] != "post-commit" {
		return fmt.Errorf("git snap hook git takes post-commit or post-rewrite, not %q", strings.Join(k.Args, " "))
	}
	code, err := capture.CodeState(ctx, s, k.Dir, k.Repo.GitEnv, false)
	if err != nil || code.Commit.IsZero() {
		return err
	}
	now := time.Now
	if k.Repo.Now != nil {
		now = k.Repo.Now
	}
	pc := capture.PostCommit{Commit: code.Commit.String(), Dirty: code.Dirty, WorkTree: s.Paths().WorkTree, Now: now()}
	_, err = pc.Mark(ctx, s)
	return err
}

// rewrite records the commits an amend or a rebase rewrote, as git's
// post-rewrite hook gives them on stdin, so that snapshots taken at the
// old commits stay linked to the new ones.
func (k *call) rewrite(s *gitstore.Store) error {
	data, err := io.ReadAll(io.LimitReader(k.Stdin, 64<<20))
	if err != nil {
		return fmt.Errorf("read the rewritten commits: %w", err)
	}
	return s.NoteRewrites(capture.ParseRewrites(data))
}

// log logs a failure, if err is one, and marks the call failed.
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
// it took, for doctor: an agent that stopped calling shows.
func (k *call) logCall(start time.Time) {
	if k.paths.CommonDir == "" || k.Late && k.ok && (k.payload == nil || k.payload.Event != ExportEvent) {
		return // a call apart (again) logs only its failure, or the export it recorded
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
	_ = hooklog.Append(filepath.Join(k.paths.CommonDir, "snap", "hook.log"), line) // best effort: the call itself is done
}
