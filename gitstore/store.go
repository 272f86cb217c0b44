// Package gitstore keeps snapshots in a git repository: one commit per
// snapshot on the session's own ref (refs/snap/<session>), checkpoints as
// annotated tags, written with go-git and moved by compare-and-swap under
// git's lock-file protocol, so that git itself can run beside it.
package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
)

// DefaultRefPrefix is where session refs live: refs/snap/<session>.
const DefaultRefPrefix = "refs/snap/"

// CheckpointPrefix is where checkpoints live: annotated tags at
// refs/snap-tags/<session>/<name>, outside refs/tags/, so that git tag
// -l, git push --tags and git clone leave them alone; git snap push
// sends them.
const CheckpointPrefix = "refs/snap-tags/"

// TagPrefix is where checkpoints lived before CheckpointPrefix, and
// where they live with Options.CheckpointsInTags:
// refs/tags/snap/<session>/<name>. Checkpoints there are still read (and
// moved by MigrateCheckpoints).
const TagPrefix = "refs/tags/snap/"

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// RefPrefix replaces DefaultRefPrefix, e.g. "refs/heads/snap/".
	RefPrefix string
	// CheckpointsInTags writes checkpoints where versions before
	// CheckpointPrefix did, under refs/tags/snap/, where git push
	// --tags and git clone carry them.
	CheckpointsInTags bool
	// Warnf receives warnings a user should see (a stale lock removed).
	Warnf func(format string, args ...any)
	// Now gives the time of new snapshots; time.Now when nil.
	Now func() time.Time
	// Identity signs commits and tags; from Env and git's config when
	// empty (see DefaultIdentity).
	Identity Signature
	// Env is what git's environment says: where the repository is (for
	// Open) and who commits.
	Env GitEnv
	// Counter counts the records of each snapshot written into the
	// totals its header keeps; nil writes no totals. The store knows no
	// agent: package session gives the agents' counter.
	Counter storage.Counter
	// View reads a record as a message, for its time and to tell which
	// records two snapshots share (diffs, merges); nil reads every record
	// generically (snapshot.ViewMessage).
	View snapshot.Viewer
	// Redactor replaces secrets in every document before anything is
	// written; nil is the built-in rules (redact.New of a zero Config).
	// Only a redactor made with Config.Disabled writes secrets as they
	// are.
	Redactor *redact.Redactor
	// MaxObjectBytes bounds the size of any object read, loose or packed,
	// checked before it is inflated: a 600 MB blob of zeros compresses
	// to 600 KB. Zero means DefaultMaxObjectBytes.
	MaxObjectBytes int64
}

// DefaultMaxObjectBytes is Options.MaxObjectBytes when zero.
const DefaultMaxObjectBytes = 64 << 20

// Store reads and writes snapshots in one repository. A Store is for one
// goroutine at a time (go-git's object storage underneath is not safe for
// concurrent use); goroutines that write at once each open their own, and
// lose nothing: every write is a compare-and-swap on the session's ref.
type Store struct {
	paths    Paths
	st       *objectReader
	refs     refStore
	prefix   string
	cpPrefix string    // where checkpoints are written: CheckpointPrefix, or TagPrefix
	tips     tipsCache // what Tips read last
	// cache keeps the sessions' tip and tally caches; nil keeps them
	// on disk.
	cache  *sessionCache
	recent recentCommits
	opts   Options
	reader layout.Reader
	// counter counts records for the header's totals (Options.Counter);
	// nil writes none, as versions before totals did.
	counter storage.Counter
	// view reads a record as a message (Options.View).
	view snapshot.Viewer
	// killAt, in tests, ends a prune at a named step as if the process
	// were killed there.
	killAt string
	signer struct { // see identity
		once sync.Once
		sig  Signature
	}
}

// Open opens the repository that contains dir. It refuses, before any
// write, repositories it cannot write safely (see FormatError).
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	paths, err := Discover(dir, opts.Env)
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
	if err := CheckRefPrefix(opts.RefPrefix); err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Redactor == nil {
		r, err := redact.New(redact.Config{})
		if err != nil {
			return nil, err
		}
		opts.Redactor = r
	}
	if opts.View == nil {
		opts.View = snapshot.ViewMessage
	}
	st := newObjectReader(paths.CommonDir, opts.MaxObjectBytes)
	s := &Store{
		paths:    paths,
		st:       st,
		prefix:   opts.RefPrefix,
		cpPrefix: CheckpointPrefix,
		opts:     opts,
		counter:  opts.Counter,
		view:     opts.View,
	}
	if opts.CheckpointsInTags {
		s.cpPrefix = TagPrefix
	}
	// Every ref update is logged as git logs one (refs/reflog.go), signed
	// as the snapshots are.
	s.refs = refs.New(paths.CommonDir, refs.Options{Warnf: opts.Warnf, Ident: s.reflogIdent})
	s.reader = layout.Reader{
		GetTree: st.tree,
		GetBlob: s.blob,
	}
	return s, nil
}

// reflogIdent signs a reflog entry made now: "Name <email> 1700000000 +0000".
func (s *Store) reflogIdent() string {
	return string(s.identity(s.opts.Now()))
}

// Paths returns where the repository lives.
func (s *Store) Paths() Paths { return s.paths }

// Close releases open files.
func (s *Store) Close() error { return s.st.Close() }

// SessionRef is the full ref name of a session's branch.
func (s *Store) SessionRef(session string) string { return s.prefix + session }

// blob reads a blob's bytes as they are stored, without go-git's copy
// and the SHA-1 of the content it computes to name the blob.
func (s *Store) blob(h storage.ID) ([]byte, error) {
	data, err := s.st.blobData(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return data, nil
}

// Save records doc as the next snapshot of a session and returns it.
// Concurrent saves to one session all land, one after another: a save
// that loses the race to move the ref retries on the new tip.
func (s *Store) Save(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, error) {
	h, objs, tally, err := s.prepare(doc, o)
	if err != nil {
		return storage.Entry{}, err
	}
	return s.commitTree(ctx, h, objs[len(objs)-1].Hash, objs, tally)
}

// SaveNew is Save, unless a snapshot of the session already holds the
// same document: then it returns that snapshot and false, and writes
// nothing. Importing a file twice adds it once.
func (s *Store) SaveNew(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, bool, error) {
	h, objs, tally, err := s.prepare(doc, o)
	if err != nil {
		return storage.Entry{}, false, err
	}
	root := objs[len(objs)-1].Hash
	tip, err := s.SessionTip(o.Session)
	if err != nil {
		return storage.Entry{}, false, err
	}
	var found storage.Entry
	err = s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		if e.Tree == root {
			found = e
			return storage.ErrStop
		}
		return nil
	})
	if err != nil || !found.ID.IsZero() {
		return found, false, err
	}
	e, err := s.commitTree(ctx, h, root, objs, tally)
	return e, err == nil, err
}

// prepare validates a document and lays out its tree and header, and
// returns the tally to keep for it (nil when none is kept).
func (s *Store) prepare(doc map[string]any, o storage.SaveOptions) (snapshot.Header, []gitobj.Object, *keptTally, error) {
	if err := checkSession(o.Session); err != nil {
		return snapshot.Header{}, nil, nil, err
	}
	var found []redact.Finding
	var held map[int]layout.Encoded
	if s.opts.Redactor != nil {
		doc, found, held = s.redactNew(doc, o.Session) // before any object exists
	}
	parts, err := snapshot.Split(doc)
	if err != nil {
		return snapshot.Header{}, nil, nil, err
	}
	h := s.header(o)
	h.Redacted += len(found)
	var tally *keptTally
	switch {
	case o.Totals != nil:
		h.Counted, h.Totals = true, *o.Totals
	case s.counter != nil:
		h.Counted = true
		h.Totals, tally = s.countDocument(doc, h.Source)
	}
	first, last := h.Totals.First, h.Totals.Last
	if !h.Counted {
		first, last = s.recordSpan(parts.Messages)
	}
	s.recordTimes(&h, o, first, last)
	if len(held) > 0 {
		msgs := slices.Clone(parts.Messages)
		for i, data := range held {
			msgs[i] = data
		}
		parts.Messages = msgs
	}
	objs, err := layout.Build(s.reader, nil, parts, &h)
	if err != nil {
		return snapshot.Header{}, nil, nil, err
	}
	return h, objs, tally, nil
}

// redactNew redacts doc, except the messages the session's tip already
// holds as they are, which it returns encoded by index. A message whose
// canonical encoding is a blob of the tip's tree was stored unchanged, so
// it had nothing to redact: a full save of a long session redacts and
// encodes only what is new, as an append does. As with an append, a rule
// added since the tip was written is not applied to what it holds.
func (s *Store) redactNew(doc map[string]any, session string) (map[string]any, []redact.Finding, map[int]layout.Encoded) {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	held := s.heldByTip(session, msgs)
	if len(held) == 0 {
		out, found := s.opts.Redactor.Document(doc)
		return out, found, nil
	}
	masked := slices.Clone(msgs)
	for i := range held {
		masked[i] = nil // nothing for the redactor to walk
	}
	in := maps.Clone(doc)
	in[snapshot.MemberMessages] = masked
	out, found := s.opts.Redactor.Document(in)
	if redacted, ok := out[snapshot.MemberMessages].([]any); ok && len(redacted) == len(msgs) {
		for i := range held {
			redacted[i] = msgs[i]
		}
	}
	return out, found, held
}

// heldByTip encodes msgs and returns those whose blob the session's tip
// already holds. Any failure to read the tip only means nothing is held.
func (s *Store) heldByTip(session string, msgs []any) map[int]layout.Encoded {
	if len(msgs) == 0 || checkSession(session) != nil {
		return nil
	}
	ref := s.SessionRef(session)
	tip, err := s.refs.Read(ref)
	if err != nil || tip.IsZero() {
		return nil
	}
	st, err := s.tipState(ref, tip)
	if err != nil {
		return nil
	}
	held := map[int]layout.Encoded{}
	for i, m := range msgs {
		// The cache's word that the tip holds this blob is checked
		// against the object store, as writeObjects does: a message
		// held is not redacted again.
		if data, err := snapshot.MarshalIndent(m); err == nil {
			if h := layout.BlobHash(data); st.known.has(h) && s.st.HasEncodedObject(h) == nil {
				held[i] = data
			}
		}
	}
	return held
}

// recordSpan is the span of the times the records carry, zero when none
// carries one.
func (s *Store) recordSpan(msgs []any) (first, last time.Time) {
	for _, m := range msgs {
		at, err := time.Parse(time.RFC3339Nano, s.view(m).Time)
		if err != nil {
			continue
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	return first, last
}

// recordTimes dates a snapshot by its records: its time is its newest
// record's, unless the caller gave one, and Started, for the first
// snapshot of a session, its oldest record's (commitOnTip keeps it only
// then).
func (s *Store) recordTimes(h *snapshot.Header, o storage.SaveOptions, first, last time.Time) {
	if o.Time.IsZero() && !last.IsZero() {
		h.Time = last
	}
	if !first.IsZero() && first.Before(h.Time) {
		h.Started = first
	}
}

// redactText redacts a text written outside the tree (a commit or tag
// message) and adds what it found to n.
func (s *Store) redactText(text string, n int) (string, int) {
	if s.opts.Redactor == nil {
		return text, n
	}
	out, found := s.opts.Redactor.String(text)
	return out, n + len(found)
}

func checkSession(name string) error {
	if err := snapshot.CheckName("session", name); err != nil {
		return &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	return nil
}

// header is the header the options describe, with their defaults; the
// tree's counts and the session's sequence are filled in later. The
// label and message go into the commit message, so they are redacted
// like the document, and counted in Redacted.
func (s *Store) header(o storage.SaveOptions) snapshot.Header {
	// Control characters go here, at the boundary, so that the header
	// a save returns is the one its commit reads back as (see
	// layout.NoControl: a NUL would make the commit one git refuses).
	// They are redacted before: a secret that spans lines (a .pgpass
	// line, a cut key) is found only in its own layout.
	clean := func(v string) string { return strings.Join(strings.Fields(layout.NoControl(v, false)), " ") }
	label, n := s.redactText(o.Label, 0)
	message, n := s.redactText(o.Message, n)
	h := snapshot.Header{
		Session: o.Session, Turn: o.Turn, Label: clean(label), Source: clean(o.Source), Message: clean(message),
		Time: o.Time, Code: clean(o.Code), Dirty: o.Dirty, RollbackOf: clean(o.RollbackOf), Redacted: n,
	}
	if h.Source == "" {
		h.Source = "cli"
	}
	if h.Time.IsZero() {
		h.Time = s.opts.Now()
	}
	return h
}

// Rollback records a new snapshot on target's session whose content is
// target's: the same tree, committed on top of the session's tip, so
// that all later history stays.
func (s *Store) Rollback(ctx context.Context, target storage.ID, o storage.SaveOptions) (storage.Entry, error) {
	t, err := s.Entry(ctx, target)
	if err != nil {
		return storage.Entry{}, err
	}
	h := s.header(o)
	h.Session, h.RollbackOf = t.Header.Session, target.String()
	h.Messages, h.Events, h.Files = t.Header.Messages, t.Header.Events, t.Header.Files
	h.Counted, h.Totals = t.Header.Counted, t.Header.Totals
	h.Redacted += t.Header.Redacted
	if h.Label == "" {
		h.Label = "rollback to " + short(target)
	}
	return s.commitTree(ctx, h, t.Tree, nil, nil)
}

// commitTree writes the objects a tree needs and commits it on top of
// the session's tip, retrying on the new tip when another writer won.
// objs are the tree's objects, root last; nil when the tree is stored.
// tally is the new snapshot's to keep, or nil.
func (s *Store) commitTree(ctx context.Context, h snapshot.Header, root storage.ID, objs []gitobj.Object, tally *keptTally) (storage.Entry, error) {
	return s.commitWritten(ctx, h, root, objs, nil, tally)
}

// commitWritten is commitTree of a tree some of whose objects (pre) a
// save wrote before, as it read them.
func (s *Store) commitWritten(ctx context.Context, h snapshot.Header, root storage.ID, objs []gitobj.Object, pre *written, tally *keptTally) (storage.Entry, error) {
	done, doneOn := false, storage.ID{} // the tip whose tree the objects were checked against
	b := built{root: root, objs: objs, listed: objs != nil, tally: tally}
	if pre != nil {
		b.ids = pre.ids
	}
	return s.commitOnTip(ctx, h, func(_ storage.ID, _ *snapshot.Header, st tipState) (built, error) {
		// Another writer moved the tip: what the old one held may no
		// longer be reachable, so the objects are checked again.
		if objs != nil && (!done || doneOn != st.commit) {
			if err := s.writeObjects(objs, st.known); err != nil {
				return built{}, err
			}
			if err := pre.recheck(s, st); err != nil {
				return built{}, err
			}
			done, doneOn = true, st.commit
		}
		return b, nil
	})
}

// built is a tree a treeBuilder made.
type built struct {
	root storage.ID
	// objs are the tree's objects, or, with onTip, those it adds to the
	// tip's.
	objs []gitobj.Object
	// onTip says the tree also holds the tip's objects (st.known): the
	// tip cache of the new snapshot is the tip's merged with objs.
	onTip bool
	// listed is false when the tree's objects are not known: the tip
	// cache is dropped, and rebuilt by the next save.
	listed bool
	// tally is the new snapshot's tally to keep for the next append;
	// nil keeps none.
	tally *keptTally
	// ids are the tree's objects written before it was built, which
	// objs does not hold (see written).
	ids []storage.ID
}

// treeBuilder makes the tree of the next snapshot on top of tip, writes
// its new objects and says what it built. It may adjust the header. It
// is called again, on the new tip, when another writer wins the race
// for the ref.
type treeBuilder func(tip storage.ID, h *snapshot.Header, st tipState) (built, error)

// errNothingNew from a treeBuilder ends commitOnTip without a commit.
var errNothingNew = errors.New("nothing new")

func (s *Store) commitOnTip(ctx context.Context, h snapshot.Header, build treeBuilder) (storage.Entry, error) {
	ref := s.SessionRef(h.Session)
	for {
		if err := ctx.Err(); err != nil {
			return storage.Entry{}, err
		}
		tip, err := s.refs.Read(ref)
		if err != nil {
			return storage.Entry{}, err
		}
		state, err := s.tipState(ref, tip)
		if err != nil {
			return storage.Entry{}, err
		}
		if err := s.checkCase(ctx, h.Session, tip, state); err != nil {
			return storage.Entry{}, err
		}
		hh := h
		b, err := build(tip, &hh, state)
		if err != nil {
			return storage.Entry{}, err
		}
		hh.Seq = state.seq + 1
		// The commit's date is the header's time, to the second: the
		// entry returned is the one a read of the commit gives.
		hh.Time = hh.Time.Truncate(time.Second)
		first := hh.Started // the oldest record's time, when build knew it
		hh.Started = state.started
		if tip.IsZero() {
			hh.Started = hh.Time
			if !first.IsZero() && first.Before(hh.Time) {
				hh.Started = first
			}
		}
		id, err := s.writeCommit(b.root, hh, tip)
		if err != nil {
			return storage.Entry{}, err
		}
		err = s.refs.Update(ctx, ref, tip, id, snapshotLogMessage(hh))
		if errors.Is(err, refs.ErrChanged) {
			continue
		}
		if err != nil {
			return storage.Entry{}, writeErr(err)
		}
		if b.tally != nil {
			s.saveTally(ref, id, b.tally)
		} else {
			s.dropTally(ref)
		}
		next := tipState{commit: id, seq: hh.Seq, started: hh.Started}
		switch {
		case !b.listed:
			s.dropTipState(ref) // rebuilt next time
		case b.onTip:
			s.saveTipState(ref, next, b.objs, b.ids, state.known)
		default:
			s.saveTipState(ref, next, b.objs, b.ids, nil)
		}
		return storage.Entry{ID: id, Parent: tip, Tree: b.root, Header: hh}, nil
	}
}

// checkCase refuses a snapshot of a session whose name differs only in
// case from an existing session's: a new session's name is looked for
// among the others; a tip found for it whose header names another spelling
// is that session's, read through a file system that ignores case.
func (s *Store) checkCase(ctx context.Context, session string, tip storage.ID, st tipState) error {
	if tip.IsZero() {
		return s.checkNewSession(ctx, session)
	}
	if st.session != session && strings.EqualFold(st.session, session) {
		return &CaseError{Kind: "session", Name: session, Existing: st.session}
	}
	return nil
}

// snapshotLogMessage is the reflog message of a new snapshot, as git
// writes "commit: <subject>".
func snapshotLogMessage(h snapshot.Header) string {
	what := h.Label
	if what == "" {
		what = h.Source
	}
	return fmt.Sprintf("snapshot #%d: %s", h.Seq, what)
}

// writeObjects stores the objects that are neither in the tip's tree nor
// already loose. Objects only in packs are not looked for: reading pack
// indexes costs more than writing the few objects a save adds.
//
// An object found loose and reused is freshened as git does (its mtime
// set to now), so that a git prune running beside, which spares recent
// objects, does not delete what the new snapshot needs: it may have been
// left unreachable by a dropped session. An object of the tip's tree is
// reachable from the ref the write checks before it moves, so it is not
// touched one by one: a full save of 10k unchanged messages would pay
// 10k utimes. The packs are freshened once instead, as before, for git
// tools that judge a pack by its age.
func (s *Store) writeObjects(objs []gitobj.Object, known hashSet) error {
	reused := false
	var packed []pack.Object // for a batch: added at once
	for _, o := range objs {
		if s.tipHolds(known, o.Hash) {
			reused = true
			continue
		}
		if s.st.batch != nil {
			packed = append(packed, pack.Object(o)) // a batch's pack is fresh: one more copy costs less than a look
			continue
		}
		if err := s.writeLoose(o); err != nil {
			return err
		}
	}
	if reused {
		s.freshenPacks()
	}
	if len(packed) > 0 {
		return s.st.batch.add(packed...)
	}
	return nil
}

// tipHolds says whether an object the tip's tree holds (known) is here.
// known comes from a cache under .git/snap/, which anything can have
// damaged: an object it lists is skipped only once it is seen to be
// here, else the new snapshot would name an object the repository lacks.
func (s *Store) tipHolds(known hashSet, h storage.ID) bool {
	return known.has(h) && s.st.HasEncodedObject(h) == nil
}

// writeLoose stores an object loose, unless it is loose already: then it
// is freshened (see writeObjects).
func (s *Store) writeLoose(o gitobj.Object) error {
	if s.freshenLoose(o.Hash) == fresh {
		return nil
	}
	_, err := s.storeObject(o)
	return err
}

type freshness int

const (
	absent freshness = iota // no loose object
	fresh                   // loose, and its mtime now
)

// freshenLoose sets a loose object's mtime to now, as git's freshen does,
// and says whether the object is there. One it may not touch (another
// user's) counts as there.
func (s *Store) freshenLoose(h storage.ID) freshness {
	hex := h.String()
	now := time.Now()
	err := os.Chtimes(filepath.Join(s.paths.CommonDir, "objects", hex[:2], hex[2:]), now, now)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return absent
	}
	return fresh
}

// freshenPacks sets the mtime of every pack to now: the objects a save
// reuses from the tip's tree are in one of them, and finding which would
// mean reading their indexes.
func (s *Store) freshenPacks() {
	dir := filepath.Join(s.paths.CommonDir, "objects", "pack")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".pack") {
			_ = os.Chtimes(filepath.Join(dir, e.Name()), now, now) // best effort, as git's
		}
	}
}

// encoder is what storeObject stores: go-git's commits and tags, and
// layout.Objects.
// storeObject encodes an object and stores it. git gc may remove an
// empty objects/xx/ directory between its creation and the rename into
// it; like git, try again then.
func (s *Store) storeObject(o gitobj.Object) (storage.ID, error) {
	typ, data, h := o.Type, o.Data, o.Hash
	var err error
	if s.st.batch != nil {
		return h, s.st.batch.add(pack.Object{Type: typ, Data: data, Hash: h})
	}
	for range 10 {
		if err = s.st.writeLoose(typ, data, h); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return storage.ID{}, writeErr(fmt.Errorf("write object %s: %w", h, err))
	}
	return h, nil
}

// writeErr explains the failure a user can fix: a read-only repository.
func writeErr(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w (git-snap needs write access to the repository's .git directory)", err)
	}
	return err
}

// CheckHeader refuses a header no reader would take for a snapshot's:
// a count or token total out of bounds (negative, or more than any
// session holds), a time outside the years a header names. A document
// whose numbers make such a header cannot be saved.
func CheckHeader(h snapshot.Header) error {
	if err := layout.CheckHeader(h); err != nil {
		return &snapshot.InputError{Path: "the snapshot's header", Msg: err.Error()}
	}
	return nil
}

// writeCommit commits a tree with a header. A zero parent (the tip of a
// session with no snapshot yet) is left out.
func (s *Store) writeCommit(tree storage.ID, h snapshot.Header, parents ...storage.ID) (storage.ID, error) {
	if err := CheckHeader(h); err != nil {
		return storage.ID{}, err
	}
	sig := s.identity(h.Time)
	var ps []storage.ID
	for _, p := range parents {
		if !p.IsZero() {
			ps = append(ps, p)
		}
	}
	return s.storeObject(gitobj.NewCommit(tree, ps, sig, sig, layout.CommitMessage(h)))
}

// Entry reads a snapshot's commit.
func (s *Store) Entry(ctx context.Context, id storage.ID) (storage.Entry, error) {
	if err := ctx.Err(); err != nil {
		return storage.Entry{}, err
	}
	return s.entry(id)
}

// entry reads a snapshot's commit.
func (s *Store) entry(id storage.ID) (storage.Entry, error) {
	e, ok, err := s.commitEntry(id)
	if err == nil && !ok {
		err = errNotSnapshot(id)
	}
	return e, err
}

// uncachedEntry is entry for reads that many goroutines make at once
// (Sessions), each of a different commit, which would only churn the
// recent ones.
func (s *Store) uncachedEntry(id storage.ID) (storage.Entry, error) {
	c, err := s.st.commit(id)
	if err != nil {
		return storage.Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return entryOf(id, c)
}

// commitEntry reads commit id as an Entry, ok false when the commit is
// not a snapshot. A command reads the same few commits more than once
// (a revision is resolved, then opened; a walk starts from what was
// resolved): the last ones read are kept.
func (s *Store) commitEntry(id storage.ID) (storage.Entry, bool, error) {
	if c, found := s.recent.get(id); found {
		return c.e, c.ok, nil
	}
	c, err := s.st.commit(id)
	if err != nil {
		return storage.Entry{}, false, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	e, ok := headerEntry(id, c)
	s.recent.put(id, recentCommit{e, ok})
	return e, ok, nil
}

// recentCommits holds the last commits read (commits never change), at
// most recentLimit: emptied when full, which serves reads that come back
// to what was just read.
type recentCommits struct {
	mu sync.Mutex
	m  map[storage.ID]recentCommit
}

type recentCommit struct {
	e  storage.Entry
	ok bool
}

const recentLimit = 64

func (r *recentCommits) get(id storage.ID) (recentCommit, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[id]
	return c, ok
}

func (r *recentCommits) put(id storage.ID, c recentCommit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil || len(r.m) >= recentLimit {
		r.m = make(map[storage.ID]recentCommit, recentLimit)
	}
	r.m[id] = c
}

func entryOf(id storage.ID, c gitobj.Commit) (storage.Entry, error) {
	e, ok := headerEntry(id, c)
	if !ok {
		return storage.Entry{}, errNotSnapshot(id)
	}
	return e, nil
}

// headerEntry is the Entry of commit id; ok is false when the commit is
// not a snapshot, whose header is then what could be read of it.
func headerEntry(id storage.ID, c gitobj.Commit) (e storage.Entry, ok bool) {
	e = storage.Entry{ID: id, Tree: c.Tree}
	e.Header, ok = layout.ParseHeader(c.Message, c.When)
	if len(c.Parents) > 0 {
		e.Parent = c.Parents[0]
	}
	if len(c.Parents) > 1 {
		e.Merged = c.Parents[1:]
	}
	return e, ok
}

func errNotSnapshot(id storage.ID) error {
	return fmt.Errorf("commit %s: %w (no %s trailer, or a trailer or the commit's date out of range)", id, storage.ErrNotSnapshot, layout.TrailerSession)
}

// Read returns a snapshot's document, JSON-equal to the one saved.
func (s *Store) Read(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	o, err := s.openSnapshot(ctx, id)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	p, err := s.loadParts(o)
	if err != nil {
		return nil, storage.Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return p.Join(), o.Entry, nil
}

// ReadWithoutMessages reads the snapshot id names but for its messages: every
// other member, its events and captured files. A reader of a long
// session reads the messages one at a time (MessageBlocks, Message).
func (s *Store) ReadWithoutMessages(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	o, err := s.openSnapshot(ctx, id)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	p := &snapshot.Parts{Others: o.rest}
	if p.Events, err = s.reader.Load(o.tree.Events); err != nil {
		return nil, storage.Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	if p.Files, err = s.reader.Files(o.tree.Files); err != nil {
		return nil, storage.Entry{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return p.Join(), o.Entry, nil
}

// InitBare makes a bare repository at dir to hold snapshots separately from
// any code repository, laid out as git init --bare lays it out.
func InitBare(dir string) (Paths, error) { return InitRepo(dir, "") }

// InitRepo makes a repository whose git dir is gitDir, with a work tree
// at workTree ("" for a bare one). A repository there already is left as
// it is: the error is ErrRepositoryExists.
func InitRepo(gitDir, workTree string) (Paths, error) {
	if isGitDir(gitDir) {
		return Paths{}, fmt.Errorf("%w: %s", ErrRepositoryExists, gitDir)
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o777); err != nil {
			return Paths{}, err
		}
	}
	files := map[string]string{
		"HEAD":        "ref: refs/heads/main\n",
		"config":      fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = %t\n", workTree == ""),
		"description": "git-snap snapshot store\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(gitDir, name), []byte(content), 0o666); err != nil {
			return Paths{}, err
		}
	}
	abs, err := filepath.Abs(gitDir)
	return Paths{GitDir: abs, CommonDir: abs, WorkTree: workTree}, err
}

// ReadRevision resolves a revision and reads the snapshot it names.
func (s *Store) ReadRevision(ctx context.Context, rev string) (map[string]any, storage.Entry, error) {
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	return s.Read(ctx, id)
}
