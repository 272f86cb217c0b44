// Package gitstore keeps snapshots in a git repository: one commit per
// snapshot on the session's own ref (refs/snap/<session>), checkpoints as
// annotated tags, written with go-git and moved by compare-and-swap under
// git's lock-file protocol, so that git itself can run beside it.
package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/git-snap/git-snap/snapshot"
)

// DefaultRefPrefix is where session refs live: refs/snap/<session>.
const DefaultRefPrefix = "refs/snap/"

// TagPrefix is where checkpoints live: refs/tags/snap/<session>/<name>.
const TagPrefix = "refs/tags/snap/"

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// RefPrefix replaces DefaultRefPrefix, e.g. "refs/heads/snap/".
	RefPrefix string
	// Warnf receives warnings a user should see (a stale lock removed).
	Warnf func(format string, args ...any)
	// Now gives the time of new snapshots; time.Now when nil.
	Now func() time.Time
	// Identity signs commits and tags; from git's environment and
	// config when empty (see DefaultIdentity).
	Identity object.Signature
}

// Store reads and writes snapshots in one repository.
type Store struct {
	paths  Paths
	st     *filesystem.Storage
	refs   refs
	prefix string
	opts   Options
	reader treeReader
}

// Entry is a snapshot as the log sees it: its commit, without the tree.
type Entry struct {
	ID     plumbing.Hash
	Parent plumbing.Hash // ZeroHash for a session's first snapshot
	Tree   plumbing.Hash
	Header snapshot.Header
}

// Open opens the repository that contains dir. It refuses, before any
// write, repositories it cannot write safely (see FormatError).
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	paths, err := Discover(dir)
	if err != nil {
		return nil, err
	}
	return OpenPaths(ctx, paths, opts)
}

// OpenPaths opens a repository whose paths are already known.
func OpenPaths(ctx context.Context, paths Paths, opts Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkFormat(paths); err != nil {
		return nil, err
	}
	if opts.RefPrefix == "" {
		opts.RefPrefix = DefaultRefPrefix
	}
	if !strings.HasPrefix(opts.RefPrefix, "refs/") || !strings.HasSuffix(opts.RefPrefix, "/") {
		return nil, fmt.Errorf("ref prefix %q must start with refs/ and end with /", opts.RefPrefix)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	st := filesystem.NewStorageWithOptions(osfs.New(paths.CommonDir), cache.NewObjectLRU(16*cache.MiByte), filesystem.Options{})
	s := &Store{
		paths:  paths,
		st:     st,
		refs:   refs{dir: paths.CommonDir, staleLock: 2 * time.Second, warnf: opts.Warnf},
		prefix: opts.RefPrefix,
		opts:   opts,
	}
	s.reader = treeReader{
		getTree: func(h plumbing.Hash) (*object.Tree, error) { return object.GetTree(st, h) },
		getBlob: s.blob,
	}
	return s, nil
}

// Paths returns where the repository lives.
func (s *Store) Paths() Paths { return s.paths }

// Close releases open files.
func (s *Store) Close() error { return s.st.Close() }

// SessionRef is the full ref name of a session's branch.
func (s *Store) SessionRef(session string) string { return s.prefix + session }

func (s *Store) blob(h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(s.st, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, b.Size)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return buf, nil
}

// SaveOptions describe a new snapshot.
type SaveOptions struct {
	Session    string
	Turn       int
	Label      string
	Source     string // "cli" when empty
	Message    string
	Code       string // the work tree's commit; see CodeState
	Dirty      bool
	RollbackOf string
	Time       time.Time // Options.Now() when zero
}

// Save records doc as the next snapshot of a session and returns it.
// Concurrent saves to one session all land, one after another: a save
// that loses the race to move the ref retries on the new tip.
func (s *Store) Save(ctx context.Context, doc map[string]any, o SaveOptions) (Entry, error) {
	if err := snapshot.CheckName("session", o.Session); err != nil {
		return Entry{}, &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	parts, err := snapshot.Split(doc)
	if err != nil {
		return Entry{}, err
	}
	objs, err := buildTree(parts)
	if err != nil {
		return Entry{}, err
	}
	h := snapshot.Header{
		Session: o.Session, Turn: o.Turn, Label: o.Label, Source: o.Source, Message: o.Message,
		Time: o.Time, Code: o.Code, Dirty: o.Dirty, RollbackOf: o.RollbackOf,
		Messages: len(parts.Messages), Events: len(parts.Events), Files: len(parts.Files),
	}
	if h.Source == "" {
		h.Source = "cli"
	}
	if h.Time.IsZero() {
		h.Time = s.opts.Now()
	}
	return s.commitTree(ctx, h, objs)
}

// commitTree writes the objects a tree needs and commits it on top of
// the session's tip, retrying on the new tip when another writer won.
func (s *Store) commitTree(ctx context.Context, h snapshot.Header, objs []rawObject) (Entry, error) {
	ref := s.SessionRef(h.Session)
	root := objs[len(objs)-1].hash
	written := false
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Entry{}, err
		}
		tip, err := s.refs.read(ref)
		if err != nil {
			return Entry{}, err
		}
		state, err := s.tipState(ref, tip)
		if err != nil {
			return Entry{}, err
		}
		if !written {
			if err := s.writeObjects(objs, state.known); err != nil {
				return Entry{}, err
			}
			written = true
		}
		h.Seq = state.seq + 1
		h.Started = state.started
		if tip.IsZero() {
			h.Started = h.Time
		}
		id, err := s.writeCommit(root, tip, h)
		if err != nil {
			return Entry{}, err
		}
		err = s.refs.update(ctx, ref, tip, id)
		if errors.Is(err, errRefChanged) {
			continue
		}
		if err != nil {
			return Entry{}, writeErr(err)
		}
		s.saveTipState(ref, tipState{commit: id, seq: h.Seq, started: h.Started}, objs)
		return Entry{ID: id, Parent: tip, Tree: root, Header: h}, nil
	}
}

// writeObjects stores the objects that are neither in the tip's tree nor
// already loose. Objects only in packs are not looked for: reading pack
// indexes costs more than writing the few objects a save adds.
func (s *Store) writeObjects(objs []rawObject, known hashSet) error {
	for _, o := range objs {
		if known.has(o.hash) || s.looseExists(o.hash) {
			continue
		}
		if err := s.writeObject(o); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) looseExists(h plumbing.Hash) bool {
	hex := h.String()
	_, err := os.Stat(filepath.Join(s.paths.CommonDir, "objects", hex[:2], hex[2:]))
	return err == nil
}

func (s *Store) writeObject(o rawObject) error {
	mem := &plumbing.MemoryObject{}
	mem.SetType(o.typ)
	if _, err := mem.Write(o.data); err != nil {
		return err
	}
	if _, err := s.st.SetEncodedObject(mem); err != nil {
		return writeErr(fmt.Errorf("write object %s: %w", o.hash, err))
	}
	return nil
}

// writeErr explains the failure a user can fix: a read-only repository.
func writeErr(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w (git-snap needs write access to the repository's .git directory)", err)
	}
	return err
}

func (s *Store) writeCommit(tree, parent plumbing.Hash, h snapshot.Header) (plumbing.Hash, error) {
	sig := s.identity(h.Time)
	c := &object.Commit{
		Author:    sig,
		Committer: sig,
		Message:   commitMessage(h),
		TreeHash:  tree,
	}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	mem := &plumbing.MemoryObject{}
	if err := c.Encode(mem); err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := s.st.SetEncodedObject(mem); err != nil {
		return plumbing.ZeroHash, writeErr(fmt.Errorf("write commit: %w", err))
	}
	return mem.Hash(), nil
}

// Entry reads a snapshot's commit.
func (s *Store) Entry(ctx context.Context, id plumbing.Hash) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	c, err := object.GetCommit(s.st, id)
	if err != nil {
		return Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return entryOf(c)
}

// ErrNotSnapshot means a commit was found but git-snap did not make it.
var ErrNotSnapshot = errors.New("not a git-snap snapshot")

func entryOf(c *object.Commit) (Entry, error) {
	h, ok := parseHeader(c.Message, c.Committer.When)
	if !ok {
		return Entry{}, fmt.Errorf("commit %s: %w (no %s trailer)", c.Hash, ErrNotSnapshot, trailerSession)
	}
	e := Entry{ID: c.Hash, Tree: c.TreeHash, Header: h}
	if len(c.ParentHashes) > 0 {
		e.Parent = c.ParentHashes[0]
	}
	return e, nil
}

// Read returns a snapshot's document, JSON-equal to the one saved.
func (s *Store) Read(ctx context.Context, id plumbing.Hash) (map[string]any, Entry, error) {
	e, err := s.Entry(ctx, id)
	if err != nil {
		return nil, Entry{}, err
	}
	p, err := s.loadParts(e.Tree)
	if err != nil {
		return nil, Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return p.Join(), e, nil
}
