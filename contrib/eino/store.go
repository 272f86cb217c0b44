// Package eino keeps Eino graph checkpoints in git with git-snap.
//
// CheckPointStore implements Eino's compose.CheckPointStore. Each
// checkpoint id is a git-snap session (refs/snap/<session>) and each Set
// is a new snapshot on it, so every checkpoint a graph ever wrote stays
// in history, `git snap log` lists them and `git snap diff` compares two.
// Get reads the session's newest snapshot.
//
// The snapshot's document:
//
//	{
//	  "eino": {"checkpoint_id": "run-1", "format": "json"},
//	  "checkpoint": { …the checkpoint, as JSON… },
//	  "forked_from": {"checkpoint_id": "run-0", "session": "eino-run-0", "snapshot": "<commit>"}
//	}
//
// Checkpoint bytes that are JSON (what Eino's own serializer writes) are
// kept as JSON under "checkpoint", so that they diff member by member;
// Get returns them in canonical compact form (keys sorted, numbers in
// their shortest exact form), which decodes to the same values as the
// bytes given to Set. Any other bytes ("format": "bytes") are kept
// byte for byte as the file files/checkpoint.bin. "forked_from" is only
// on a fork's first snapshot (see Fork).
//
// Nothing is ever removed: Delete records a snapshot that marks the
// checkpoint deleted ("deleted": true under "eino", no checkpoint), after
// which Get reports it missing; the checkpoints before it stay in
// history, and `git snap rollback` brings one back.
//
// Where Eino's contract is met differently: Get returns JSON-equal, not
// identical, bytes for JSON checkpoints (see above); Eino does not tell a
// store that a write forks another checkpoint, so recording the parent
// needs Fork's context; Eino v0.7 defines no deleter interface, so Delete
// is for callers, Eino never calls it; and since a repository redacts
// secrets, checkpoints holding them are refused unless Options.Redact
// says otherwise.
package eino

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cloudwego/eino/compose"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Members of the document a checkpoint is stored as.
const (
	memberMeta       = "eino"
	memberCheckpoint = "checkpoint"
	memberForkedFrom = "forked_from"
	// BytesFile is the captured file that holds checkpoint bytes that
	// are not JSON: files/checkpoint.bin in the snapshot's tree.
	BytesFile = "checkpoint.bin"
)

// Labels of the snapshots the store writes, for `git snap log --label`.
const (
	LabelSet    = "eino checkpoint"
	LabelFork   = "eino fork"
	LabelDelete = "eino delete"
)

// Source is the Snap-Source of every snapshot the store writes.
const Source = "eino"

// Options tune a CheckPointStore. The zero value is ready to use.
type Options struct {
	// Session names the session that holds a checkpoint id;
	// DefaultSession when nil. It must give a valid session name and
	// different sessions for different ids: Get refuses a session whose
	// snapshots belong to another id.
	Session func(checkPointID string) string
	// Redact lets the repository's redactor (gitsnap.Repository.Redactor:
	// the built-in rules and the settings' own) replace secrets inside
	// checkpoints. Off, Set refuses a checkpoint
	// the redactor would change, since a graph resumed from it would
	// read the placeholders instead of its own state.
	Redact bool
}

// CheckPointStore is an Eino compose.CheckPointStore that keeps each
// checkpoint as snapshots of a git-snap session. It is safe for
// concurrent use, also by several processes on one repository.
type CheckPointStore struct {
	repo    *gitsnap.Repository
	session func(string) string
	redact  bool
}

var _ compose.CheckPointStore = (*CheckPointStore)(nil)

// New returns a CheckPointStore writing to repo (gitsnap.Open). The
// caller keeps ownership of repo and closes it.
func New(repo *gitsnap.Repository, opts Options) *CheckPointStore {
	s := &CheckPointStore{repo: repo, session: opts.Session, redact: opts.Redact}
	if s.session == nil {
		s.session = DefaultSession
	}
	return s
}

// Session returns the session that holds a checkpoint id.
func (s *CheckPointStore) Session(checkPointID string) (string, error) {
	name := s.session(checkPointID)
	if err := snapshot.CheckName("session", name); err != nil {
		return "", fmt.Errorf("eino checkpoint %q: %w", checkPointID, err)
	}
	return name, nil
}

// Get returns the checkpoint's newest bytes. A checkpoint never set, or
// deleted since, is reported missing (false, no error).
func (s *CheckPointStore) Get(ctx context.Context, checkPointID string) ([]byte, bool, error) {
	defer lockRepo(s.repo)()
	return s.get(ctx, checkPointID)
}

func (s *CheckPointStore) get(ctx context.Context, checkPointID string) ([]byte, bool, error) {
	session, err := s.Session(checkPointID)
	if err != nil {
		return nil, false, err
	}
	tip, err := s.repo.SessionTip(session)
	if err != nil || tip.IsZero() {
		return nil, false, err
	}
	doc, _, err := s.repo.Read(ctx, tip)
	if err != nil {
		return nil, false, err
	}
	data, ok, err := decode(doc, checkPointID, session)
	if err != nil || !ok {
		return nil, false, err
	}
	if f := forkOf(ctx); f != nil && f.from == checkPointID {
		f.read(session, tip) // what the fork's first snapshot will name as its parent
	}
	return data, true, nil
}

// Set records the checkpoint's new bytes as the next snapshot of its
// session. Two writers setting one id at once both land, one after the
// other; Get then returns the later.
func (s *CheckPointStore) Set(ctx context.Context, checkPointID string, checkPoint []byte) error {
	session, err := s.Session(checkPointID)
	if err != nil {
		return err
	}
	doc, format, parsed := encode(checkPointID, checkPoint)
	label := LabelSet
	if f := forkOf(ctx); f != nil && f.to == checkPointID {
		if parent, ok := f.take(); ok {
			doc[memberForkedFrom] = parent
			label = LabelFork
		}
	}
	if err := s.checkRedaction(checkPointID, doc); err != nil {
		return err
	}
	defer lockRepo(s.repo)()
	_, err = s.repo.Save(ctx, doc, storage.SaveOptions{
		Session: session, Label: label, Source: Source,
		Message: subject(label, len(checkPoint), format, parsed),
	})
	return err
}

// Delete marks the checkpoint deleted: a new snapshot with no
// checkpoint, after which Get reports it missing. History is kept, so
// the bytes it had stay readable (`git snap log`, `git snap restore
// <session>~1`). Deleting a missing checkpoint writes nothing.
func (s *CheckPointStore) Delete(ctx context.Context, checkPointID string) error {
	session, err := s.Session(checkPointID)
	if err != nil {
		return err
	}
	defer lockRepo(s.repo)()
	if _, ok, err := s.get(ctx, checkPointID); err != nil || !ok {
		return err
	}
	doc := map[string]any{memberMeta: map[string]any{"checkpoint_id": checkPointID, "deleted": true}}
	_, err = s.repo.Save(ctx, doc, storage.SaveOptions{Session: session, Label: LabelDelete, Source: Source})
	return err
}

// checkRedaction refuses a checkpoint the repository's redactor would
// change, unless Options.Redact allows it.
func (s *CheckPointStore) checkRedaction(id string, doc map[string]any) error {
	r := s.repo.Redactor()
	if r == nil || s.redact {
		return nil
	}
	_, found := r.Document(doc)
	if len(found) == 0 {
		return nil
	}
	rules := map[string]bool{}
	for _, f := range found {
		rules[f.Rule] = true
	}
	names := make([]string, 0, len(rules))
	for n := range rules {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("eino checkpoint %q holds what the redactor takes for secrets (%s): a graph resumed from it would read the placeholders; set Options.Redact to store it redacted anyway", id, strings.Join(names, ", "))
}

// encode makes the document for one Set and says how the bytes are kept;
// it returns the parsed JSON too, nil when the bytes are not JSON.
func encode(id string, data []byte) (map[string]any, string, any) {
	meta := map[string]any{"checkpoint_id": id}
	doc := map[string]any{memberMeta: meta}
	if v, err := snapshot.Parse(data, snapshot.Limits{}); err == nil {
		meta["format"] = "json"
		doc[memberCheckpoint] = v
		return doc, "json", v
	}
	// Not JSON git-snap can keep without loss (or not JSON at all): the
	// bytes as they are, in a blob of their own.
	meta["format"] = "bytes"
	doc[snapshot.MemberFiles] = map[string]any{
		BytesFile: map[string]any{"content": base64.StdEncoding.EncodeToString(data), "encoding": "base64"},
	}
	return doc, "bytes", nil
}

// decode returns the checkpoint bytes a document holds; false when it
// marks the checkpoint deleted.
func decode(doc map[string]any, id, session string) ([]byte, bool, error) {
	meta, _ := doc[memberMeta].(map[string]any)
	if meta == nil {
		return nil, false, fmt.Errorf("session %s: %w (no %q member)", session, ErrNotCheckpoint, memberMeta)
	}
	if got, _ := meta["checkpoint_id"].(string); got != id {
		return nil, false, fmt.Errorf("session %s holds eino checkpoint %q, not %q: Options.Session gives two ids one session", session, got, id)
	}
	if deleted, _ := meta["deleted"].(bool); deleted {
		return nil, false, nil
	}
	switch meta["format"] {
	case "json":
		data, err := snapshot.Marshal(doc[memberCheckpoint])
		return data, err == nil, err
	case "bytes":
		files, _ := doc[snapshot.MemberFiles].(map[string]any)
		entry, _ := files[BytesFile].(map[string]any)
		content, ok := entry["content"].(string)
		if !ok {
			return nil, false, fmt.Errorf("session %s: files/%s is missing", session, BytesFile)
		}
		if entry["encoding"] == "base64" {
			data, err := base64.StdEncoding.DecodeString(content)
			return data, err == nil, err
		}
		return []byte(content), true, nil
	}
	return nil, false, fmt.Errorf("session %s: unknown eino checkpoint format %v", session, meta["format"])
}

// subject is the snapshot's first line in git log: what kind of write
// it was and, for Eino's own checkpoints, the nodes the graph runs next
// when resumed (best effort: Eino's format is not a stable interface).
func subject(label string, size int, format string, parsed any) string {
	s := fmt.Sprintf("%s (%d bytes, %s)", label, size, format)
	if nodes := nextNodes(parsed); len(nodes) > 0 {
		s += ", next: " + strings.Join(nodes, ", ")
	}
	return s
}

// nextNodes reads the nodes with pending inputs from a checkpoint written
// by Eino's internal serializer: MapValues.Inputs.MapValues, keyed by the
// node names as JSON strings.
func nextNodes(v any) []string {
	get := func(v any, k string) any {
		m, _ := v.(map[string]any)
		return m[k]
	}
	inputs, _ := get(get(get(v, "MapValues"), "Inputs"), "MapValues").(map[string]any)
	var nodes []string
	for k := range inputs {
		name, err := snapshot.Parse([]byte(k), snapshot.Limits{})
		if s, ok := name.(string); ok && err == nil {
			nodes = append(nodes, printable(s))
		}
	}
	sort.Strings(nodes)
	return nodes
}

// printable keeps a node name to one short line of a commit subject.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len([]rune(s)) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return s
}

// forkKey carries a *fork in a context.
type forkKey struct{}

// fork is one run that reads checkpoint from and writes checkpoint to.
// Eino calls the store with one id for Get and another for Set and says
// nothing that links them; the context Fork returns does.
type fork struct {
	from, to string
	mu       sync.Mutex
	parent   map[string]any // what Get read; nil until then
	done     bool
}

func (f *fork) read(session string, tip storage.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.parent = map[string]any{"checkpoint_id": f.from, "session": session, "snapshot": tip.String()}
}

// take returns the parent once: only the fork's first write records it,
// later writes in the same context continue the new session.
func (f *fork) take() (map[string]any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || f.parent == nil {
		return nil, false
	}
	f.done = true
	return f.parent, true
}

func forkOf(ctx context.Context) *fork {
	f, _ := ctx.Value(forkKey{}).(*fork)
	return f
}

// Fork prepares a run that resumes checkpoint from and writes its
// progress to checkpoint to, leaving from as it is: Eino's
// WithCheckPointID(from) and WithWriteToCheckPointID(to), and a context
// through which the store records, in to's first snapshot, the session
// and snapshot it was forked from ("forked_from", label LabelFork). Run
// the graph with both:
//
//	ctx, opts := eino.Fork(ctx, "run-1", "run-1-retry")
//	out, err := graph.Invoke(ctx, input, opts...)
//
// Passing the two Eino options without this context forks as well, but
// the new session then does not say where it came from.
func Fork(ctx context.Context, from, to string) (context.Context, []compose.Option) {
	opts := []compose.Option{compose.WithCheckPointID(from), compose.WithWriteToCheckPointID(to)}
	if from == to {
		return ctx, opts // not a fork: the checkpoint just goes on
	}
	return context.WithValue(ctx, forkKey{}, &fork{from: from, to: to}), opts
}

// ForkedFrom reports the checkpoint a snapshot's document was forked
// from: its id, session and snapshot; false when it was not a fork's
// first snapshot.
func ForkedFrom(doc map[string]any) (checkPointID, session string, snap storage.ID, ok bool) {
	m, _ := doc[memberForkedFrom].(map[string]any)
	if m == nil {
		return "", "", storage.ID{}, false
	}
	checkPointID, _ = m["checkpoint_id"].(string)
	session, _ = m["session"].(string)
	h, _ := m["snapshot"].(string)
	return checkPointID, session, storage.NewID(h), true
}

// repoLocks serialises this package's calls on each gitsnap.Repository:
// a Repository is for one goroutine at a time (go-git's object storage
// keeps unsynchronised state), while graphs and chains run
// concurrently. Other Repositories and other processes on the same
// repository still write at the same time, safely, through the
// compare-and-swap on the session's ref. One small mutex stays per
// Repository ever used.
var repoLocks sync.Map // *gitsnap.Repository → *sync.Mutex

func lockRepo(r *gitsnap.Repository) func() {
	m, _ := repoLocks.LoadOrStore(r, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// ErrNotCheckpoint is wrapped by errors about sessions that hold no eino
// checkpoint.
var ErrNotCheckpoint = errors.New("not an eino checkpoint")
