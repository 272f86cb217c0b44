package gitsnap

import (
	"context"
	"io"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Resolve returns the snapshot that a revision names. Revisions are
// written the way git users write them: a session ("fix-bug"), its
// ancestors ("fix-bug~2", "fix-bug^"), a checkpoint
// ("snap/fix-bug/before-refactor"), an id or a unique prefix of one, or
// any git ref or name ("refs/snap/fix-bug", "snap/fix-bug") that points
// at a snapshot.
func (r *Repository) Resolve(ctx context.Context, rev string) (storage.ID, error) {
	return r.store.Resolve(ctx, rev)
}

// ResolveRange resolves the arguments of log or diff (see SplitRange).
// Each argument adds to Include or Exclude. A missing end of a range
// ("A..", "..B") means the newest snapshot of the other end's session,
// so fix~3.. means fix~3..fix, and snap/fix/green.. means
// snap/fix/green..fix.
func (r *Repository) ResolveRange(ctx context.Context, args []string) (gitstore.RevRange, error) {
	return r.store.ResolveRange(ctx, args)
}

// ResolvePair resolves the arguments of a diff to the two snapshots it
// compares: "A B", "A..B" or "^A B" (A to B), or "A" alone (A's parent to
// A, with a zero first id when A is its session's first snapshot). A
// missing end of a range means the newest snapshot of the other end's
// session (see ResolveRange).
func (r *Repository) ResolvePair(ctx context.Context, args []string) (a, b storage.ID, err error) {
	return r.store.ResolvePair(ctx, args)
}

// Read returns a snapshot's document, JSON-equal to the one saved.
func (r *Repository) Read(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	return r.store.Read(ctx, id)
}

// ReadRevision resolves a revision and reads the snapshot that it names.
func (r *Repository) ReadRevision(ctx context.Context, rev string) (map[string]any, storage.Entry, error) {
	return r.store.ReadRevision(ctx, rev)
}

// ReadWithoutMessages reads snapshot id except for its messages: every other
// member, its events and its captured files. A reader of a long session
// reads the messages one at a time (MessageBlocks, Message).
func (r *Repository) ReadWithoutMessages(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	return r.store.ReadWithoutMessages(ctx, id)
}

// ReadPath reads path in the snapshot that rev names, as git show
// REV:PATH reads a blob. If path names a captured file (as show
// --name-only prints it, or as files/<path>), it returns the file's
// bytes. Otherwise path is read as a JSON Pointer without its leading
// '/' (messages/3, transcript, config/model), and it returns that member
// of the document as canonical indented JSON. isFile reports which of
// the two it returned. An empty path means the whole document.
func (r *Repository) ReadPath(ctx context.Context, rev, path string) (data []byte, isFile bool, err error) {
	return r.store.ReadPath(ctx, rev, path)
}

// Entry reads a snapshot's commit.
func (r *Repository) Entry(ctx context.Context, id storage.ID) (storage.Entry, error) {
	return r.store.Entry(ctx, id)
}

// Walk visits the snapshots reachable from starts, newest first (by
// commit time, as git log orders them), each once. It reads commits
// only, never trees. fn may return ErrStop to end the walk.
func (r *Repository) Walk(ctx context.Context, starts []storage.ID, fn func(storage.Entry) error) error {
	return r.store.Walk(ctx, starts, fn)
}

// WalkRange is like Walk, over the snapshots that rng selects: those
// reachable from rng.Include but not from rng.Exclude, as git log A..B
// and ^A B select them, newest first. Without exclusions it streams in
// time order, as Walk does. With exclusions it walks by generation, so
// that excluded history hides the snapshots it reaches before they can
// be shown, and then visits the remaining ones in time order. Excluded
// history is walked only as far as it can still hide something.
func (r *Repository) WalkRange(ctx context.Context, rng gitstore.RevRange, fn func(storage.Entry) error) error {
	return r.store.WalkRange(ctx, rng, fn)
}

// Diff compares two snapshots. It reads only what differs: chunks and
// elements whose stored objects are the same on both sides are skipped.
func (r *Repository) Diff(ctx context.Context, a, b storage.ID) (*snapshot.Diff, error) {
	return r.store.Diff(ctx, a, b)
}

// ChangedFiles returns, sorted, the captured files that a snapshot
// added, changed (in content or mode) or removed compared with its
// first parent. A session's first snapshot changes every file it
// captures. If under is not empty, only paths equal to, or inside a
// directory named by, one of its entries are listed; git log -- PATH
// uses this. Only trees are read, never file contents.
func (r *Repository) ChangedFiles(ctx context.Context, e storage.Entry, under []string) ([]string, error) {
	return r.store.ChangedFiles(ctx, e, under)
}

// Sessions lists every session, most recently active first. Sessions
// whose newest snapshot cannot be read are skipped and named in a
// *DamagedSessions error, returned along with the other sessions.
func (r *Repository) Sessions(ctx context.Context) ([]storage.Session, error) {
	return r.store.Sessions(ctx)
}

// EachSession calls keep with every session whose newest snapshot can
// be read, in the order of their names, then returns a
// *DamagedSessions error naming those skipped, if any. Unlike Sessions
// it does not hold every session's newest snapshot at once: a listing
// of 100k sessions keeps only what it shows of each.
func (r *Repository) EachSession(ctx context.Context, keep func(storage.Session) error) error {
	return r.store.EachSession(ctx, keep)
}

// SessionTip returns the id of a session's newest snapshot, or the zero
// ID if the session has none.
func (r *Repository) SessionTip(session string) (storage.ID, error) {
	return r.store.SessionTip(session)
}

// SessionNames lists the sessions' names, sorted, from the refs alone.
// No commit is read, so that shell completion stays fast however long
// the history.
func (r *Repository) SessionNames(ctx context.Context) ([]string, error) {
	return r.store.SessionNames(ctx)
}

// CheckpointNames lists, sorted, the checkpoints of one session (or of
// all sessions, for "") in revision form, snap/<session>/<name>. It
// reads only the refs.
func (r *Repository) CheckpointNames(ctx context.Context, session string) ([]string, error) {
	return r.store.CheckpointNames(ctx, session)
}

// Checkpoints lists the checkpoints of one session (or of all sessions,
// for ""), oldest first. When moved is set, previous targets of moved
// names are listed too. Checkpoints whose tag is missing or damaged are
// skipped and named in a *DamagedCheckpoints error, returned along with
// the other checkpoints; previously, one damaged checkpoint made every
// log fail.
func (r *Repository) Checkpoints(ctx context.Context, session string, moved bool) ([]storage.Checkpoint, error) {
	return r.store.Checkpoints(ctx, session, moved)
}

// CheckpointsBySession maps each session to the names of its
// checkpoints. It lists the refs once and reads no tags.
func (r *Repository) CheckpointsBySession() (map[string][]string, error) {
	return r.store.CheckpointsBySession()
}

// CheckpointsElsewhere lists the checkpoints in the place they are no
// longer written to (refs/tags/snap/, or refs/snap-tags/ with
// Options.CheckpointsInTags), which MigrateCheckpoints moves, and that
// place: the tags git-snap wrote as checkpoints there, not a project's
// own tags named alike. Reading them costs one listing of refs, and the
// tag and snapshot of each ref listed.
func (r *Repository) CheckpointsElsewhere(ctx context.Context) (refs []string, prefix string, err error) {
	return r.store.CheckpointsElsewhere(ctx)
}

// FindSession resolves a session argument: a session's name, a short
// name given to a session (NameSession), or a prefix of at least
// MinSessionPrefix characters that matches exactly one session's name.
// A prefix that matches several sessions is an error that lists them.
func (r *Repository) FindSession(ctx context.Context, arg string) (string, error) {
	return r.store.FindSession(ctx, arg)
}

// SessionAliases lists the names given to sessions, sorted by name.
func (r *Repository) SessionAliases() ([]gitstore.SessionAlias, error) {
	return r.store.SessionAliases()
}

// TotalsProgress is like Totals, but reports progress when progress is
// not nil. The documents that must be counted are those of snapshots
// written without totals and not yet cached. progress is called before
// each of them and after the last with the number counted so far. This
// is the one-time upgrade of a repository written by an older version.
func (r *Repository) TotalsProgress(ctx context.Context, entries []storage.Entry, progress func(done, of int)) (out []snapshot.Totals, ok []bool, err error) {
	return r.store.TotalsProgress(ctx, entries, progress)
}

// Totals returns each entry's totals: the totals in its header, when
// they were computed as the snapshot was written (and include the
// conversation's message count), or else totals the store computes from
// its document. Computed totals are cached under .git/snap/cache/, so
// that the document of a snapshot written before totals existed is read
// once, not on every call. ok[i] is false when entries[i] has no totals,
// which happens only with a store that has no Counter (in tests).
func (r *Repository) Totals(ctx context.Context, entries []storage.Entry) (out []snapshot.Totals, ok []bool, err error) {
	return r.store.Totals(ctx, entries)
}

// CodePrefix turns a code revision into the commit id or id prefix that
// Filter.Code matches. A hex prefix of four or more digits is returned
// unchanged; HEAD, a branch or a tag is resolved.
func (r *Repository) CodePrefix(code string) (string, error) {
	return r.store.CodePrefix(code)
}

// ReadRewrites reads the rewrites that NoteRewrites recorded. It returns
// no rewrites when none were recorded.
func (r *Repository) ReadRewrites(ctx context.Context) (gitstore.Rewrites, error) {
	return r.store.ReadRewrites(ctx)
}

// RemoteTips maps the name of each session fetched from a remote to its
// newest snapshot.
func (r *Repository) RemoteTips(remote string) (map[string]storage.ID, error) {
	return r.store.RemoteTips(remote)
}

// Save records doc as the next snapshot of a session and returns it.
// Concurrent saves to one session all succeed, one after another: a save
// that loses the race to update the ref retries on top of the new newest
// snapshot.
func (r *Repository) Save(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.Save(ctx, doc, o)
}

// SaveNew is like Save, except that when a snapshot of the session
// already holds the same document, it returns that snapshot and false,
// and writes nothing. So importing a file twice adds it only once.
func (r *Repository) SaveNew(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, bool, error) {
	return r.store.SaveNew(ctx, doc, o)
}

// SaveScanned is like Save, for a document scanned from text
// (snapshot.ScanDocument), and writes the same snapshot byte for byte:
// the same blobs, trees and commit. It processes the messages and events
// one at a time: each is parsed from the text, redacted, encoded,
// counted and written as a blob before the next is read. So a save holds
// only the text and the ids of what it wrote, not the parsed document
// (docs/design.md §7). The whole document was checked when it was
// scanned, so nothing is written for an invalid document.
//
// A document whose live records are not in stored order, or whose live
// records can be identified only by reading them all (Gemini CLI's JSONL
// chat), is parsed in full and saved as Save saves it.
func (r *Repository) SaveScanned(ctx context.Context, d *snapshot.Scanned, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.SaveScanned(ctx, d, o)
}

// Append records the next snapshot of a session as its newest snapshot
// plus a delta, without reading or rewriting what the newest snapshot
// already holds: appending one message writes one blob and the few trees
// above it. next receives the newest snapshot's members other than
// messages, events and files (snapshot.Others: no file metadata, no
// empty arrays; nil for a new session), so returning them as Delta.Others
// keeps them unchanged. If another writer updates the session in the
// meantime, next is called again with the new newest snapshot, so a
// delta computed from state kept in the document (such as a read
// position) is never applied twice. Append returns false, and writes
// nothing, when the delta is empty.
func (r *Repository) Append(ctx context.Context, o storage.SaveOptions, next func(tipRest map[string]any) (storage.Delta, error)) (storage.Entry, bool, error) {
	return r.store.Append(ctx, o, next)
}

// Rollback records a new snapshot in target's session with the same
// content as target: the same tree, committed on top of the session's
// newest snapshot, so that all later history is kept.
func (r *Repository) Rollback(ctx context.Context, target storage.ID, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.Rollback(ctx, target, o)
}

// SetCheckpoint gives a snapshot a checkpoint name. The checkpoint
// belongs to the snapshot's session. Moving an existing name requires
// force, and the previous tag is kept under MovedPrefix.
func (r *Repository) SetCheckpoint(ctx context.Context, name string, target storage.ID, msg string, force bool) (storage.Checkpoint, error) {
	return r.store.SetCheckpoint(ctx, name, target, msg, force)
}

// DeleteCheckpoint removes a checkpoint of a session from both ref
// prefixes where checkpoints may be stored (see MigrateCheckpoints).
func (r *Repository) DeleteCheckpoint(ctx context.Context, session, name string) error {
	return r.store.DeleteCheckpoint(ctx, session, name)
}

// NameSession gives session (a session's name, an existing short name,
// or a unique prefix; see FindSession) the short name name, which every
// revision and session argument then accepts. A name already given to
// another session is moved only with force, and a session's own name
// cannot be used as a short name. about is the text that shell
// completion shows next to the name (such as the session's first
// prompt). NameSession returns the alias it wrote.
func (r *Repository) NameSession(ctx context.Context, name, session, about string, force bool) (gitstore.SessionAlias, error) {
	return r.store.NameSession(ctx, name, session, about, force)
}

// Unname removes a short name given to a session; the session itself is
// kept.
func (r *Repository) Unname(ctx context.Context, name string) error {
	return r.store.Unname(ctx, name)
}

// Drop removes a session: its ref, its checkpoints and its cache. With
// dryRun, it only reports what it would remove. The session's objects
// stay, referenced by the reflogs that the removal writes (and keeps, in
// logs/refs/snap/<session>), until git gc expires those reflogs. Until
// then, Undrop can restore the session.
func (r *Repository) Drop(ctx context.Context, session string, dryRun bool) (gitstore.Dropped, error) {
	return r.store.Drop(ctx, session, dryRun)
}

// Undrop restores a session that Drop removed, from the reflog that the
// drop wrote: its ref, pointing at its former newest snapshot, and its
// checkpoints that named snapshots of the session. It refuses a session
// that exists, one whose last reflog entry is not a drop, and one whose
// snapshots git gc has removed.
func (r *Repository) Undrop(ctx context.Context, session string) (gitstore.Dropped, error) {
	return r.store.Undrop(ctx, session)
}

// Prune rewrites a session's history to hold only the snapshots that the
// rules keep, with the same content, headers and times. Checkpoint tags
// move with their snapshots, and old ids still resolve to the kept
// snapshots. It changes only the session's ref and its checkpoints;
// objects are left for git gc to collect.
func (r *Repository) Prune(ctx context.Context, session string, o gitstore.PruneOptions) (gitstore.PruneResult, error) {
	return r.store.Prune(ctx, session, o)
}

// ApplyRetention prunes a session back to the policy's maximum when
// pruning is due, and does nothing otherwise. seq is the number of the
// session's newest snapshot, as a save returns it. Callers that save
// snapshots call it after each one.
func (r *Repository) ApplyRetention(ctx context.Context, session string, seq int, p gitstore.RetentionPolicy) (gitstore.PruneResult, error) {
	return r.store.ApplyRetention(ctx, session, seq, p)
}

// GC packs git-snap's objects and lets git collect the rest:
//
//   - Temporary files left by killed writers are removed
//     (removeStaleTemp).
//   - git pack-objects writes every object reachable from sessions and
//     checkpoints into a new pack, recomputing deltas with a wide
//     window, so that content shared by several snapshots is stored
//     once.
//   - git prune-packed then removes the loose copies, and any pack whose
//     objects are all in the new pack is removed. Nothing that is not in
//     the new pack is deleted, so whatever git's reflogs, index or other
//     refs reference is kept.
//   - git gc --auto does the rest, as git would.
//
// The new pack is marked as kept, with a .keep file that GC recognises
// as its own. git gc and git repack, with or without --aggressive, leave
// a kept pack alone; otherwise git gc --aggressive would repack the
// snapshots with a narrower window (1.59× the gzip size of the
// transcript, instead of 1.32×). The next GC releases the previous pack:
// it removes that pack's .keep file, and removes the pack too once the
// new one holds all of its objects; otherwise git gc collects the
// objects that no ref reaches any more.
func (r *Repository) GC(ctx context.Context, o gitstore.GCOptions) error {
	return r.store.GC(ctx, o)
}

// KeepsRefPerSession reports whether remote keeps one ref per session,
// as earlier versions pushed them and as last fetched.
func (r *Repository) KeepsRefPerSession(remote string) (bool, error) {
	return r.store.KeepsRefPerSession(remote)
}

// MigrateRemote moves a remote that keeps one ref per session, as
// earlier versions pushed them, into the few refs that carry sessions
// now; with dryRun it only says what would move.
func (r *Repository) MigrateRemote(ctx context.Context, o gitstore.RemoteOptions, dryRun bool) (gitstore.RemoteMigration, error) {
	return r.store.MigrateRemote(ctx, o, dryRun)
}

// MigrateCheckpoints moves every checkpoint to the prefix where
// checkpoints are now written: from refs/tags/snap/ to refs/snap-tags/
// (or the other way, with Options.CheckpointsInTags). The tag objects
// stay the same, and each move is logged. With dryRun, nothing is moved.
func (r *Repository) MigrateCheckpoints(ctx context.Context, dryRun bool) ([]gitstore.Migrated, error) {
	return r.store.MigrateCheckpoints(ctx, dryRun)
}

// Push sends sessions and their checkpoints to a remote. The remote
// refuses a session that has diverged there, as git refuses a branch; in
// that case, pull first. With ForceWithLease, a session that this clone
// pruned replaces the remote's copy, provided the remote's copy is
// unchanged since this clone last saw it. Afterwards the remote-tracking
// refs hold what was sent, as after a fetch.
func (r *Repository) Push(ctx context.Context, o gitstore.RemoteOptions) error {
	return r.store.Push(ctx, o)
}

// Fetch brings a remote's sessions into refs/remotes/<remote>/snap/.
func (r *Repository) Fetch(ctx context.Context, o gitstore.RemoteOptions) error {
	return r.store.Fetch(ctx, o)
}

// Pull fetches a remote's sessions and merges each into the local
// session: a new session is created, a session that is behind is
// fast-forwarded, and a session that has diverged gets a merge snapshot
// whose parents are both newest snapshots, so that neither side is ever
// lost. Checkpoints that the remote has and this repository lacks are
// added.
func (r *Repository) Pull(ctx context.Context, o gitstore.RemoteOptions) ([]gitstore.PullResult, error) {
	return r.store.Pull(ctx, o)
}

// WriteBundle writes a git bundle (a file that git bundle, git fetch and
// git snap import can all read) holding the given refs and everything
// they reach. The refs are sessions under the ref prefix, and
// checkpoints under refs/snap-tags/ (or refs/tags/snap/).
func (r *Repository) WriteBundle(ctx context.Context, w io.Writer, refs []string) (int, error) {
	return r.store.WriteBundle(ctx, w, refs)
}

// BundleRefs returns the refs that a bundle of names holds. A session
// name stands for the session's ref and its checkpoints' tags, as push
// sends them; snap/<session>/<name> stands for that checkpoint's tag
// alone; no names means every session. The caller must check that each
// name is one of these. Each ref is listed once.
func (r *Repository) BundleRefs(ctx context.Context, names []string) ([]string, error) {
	return r.store.BundleRefs(ctx, names)
}

// ImportBundle reads a bundle and merges its sessions into the local
// ones as Pull does (creating, fast-forwarding or merging them, never
// losing a side), and adds the checkpoints this repository lacks. It
// returns one result per session. The sessions' refs are imported
// first, so that their checkpoints' snapshots, which are already in the
// sessions' history, change nothing more.
func (r *Repository) ImportBundle(ctx context.Context, bundle io.Reader) ([]gitstore.PullResult, error) {
	return r.store.ImportBundle(ctx, bundle)
}

// Scan audits history that is already saved. It reads every snapshot
// reachable from starts, reading each distinct stored object once, and
// reports what rules finds.
func (r *Repository) Scan(ctx context.Context, starts []storage.ID, rules *redact.Redactor, fn func(gitstore.ScanFinding) error) error {
	return r.store.Scan(ctx, starts, rules, fn)
}

// NoteRewrites records code commits that were rewritten into other
// commits (old → new), adding to the rewrites recorded earlier.
func (r *Repository) NoteRewrites(pairs [][2]storage.ID) error {
	return r.store.NoteRewrites(pairs)
}

// Redactor returns the redactor that every write goes through, with the
// built-in rules and the configured ones.
func (r *Repository) Redactor() *redact.Redactor { return r.store.Redactor() }

// SessionRef returns the full name of the ref that holds a session.
func (r *Repository) SessionRef(session string) string { return r.store.SessionRef(session) }

// Import imports many agent transcripts at once, in one batch (see
// capture.Importer, whose Store is this repository's). A session whose
// transcripts hold more than the settings' limits.max_document_bytes is
// refused, unless im names a bound of its own.
func (r *Repository) Import(ctx context.Context, im capture.Importer, items []agent.ImportItem) error {
	im.Store = r.store
	if im.MaxDocumentBytes == 0 {
		im.MaxDocumentBytes = int64(r.Config.Limits.MaxDocumentBytes)
	}
	return im.Run(ctx, items)
}
