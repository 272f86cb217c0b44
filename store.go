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

// Resolve finds the snapshot a revision names. Revisions are written as
// git users write them: a session ("fix-bug"), its ancestors ("fix-bug~2",
// "fix-bug^"), a checkpoint ("snap/fix-bug/before-refactor"), an id or a
// unique prefix of one, or any git ref or name ("refs/snap/fix-bug",
// "snap/fix-bug") that points at a snapshot.
func (r *Repository) Resolve(ctx context.Context, rev string) (storage.ID, error) {
	return r.store.Resolve(ctx, rev)
}

// ResolveRange resolves the arguments of log or diff (see SplitRange).
// Each argument adds to Include or Exclude. An end left out of a range
// ("A..", "..B") is the newest snapshot of the session the other end is
// in, so fix~3.. reads as fix~3..fix and snap/fix/green.. as
// snap/fix/green..fix.
func (r *Repository) ResolveRange(ctx context.Context, args []string) (gitstore.RevRange, error) {
	return r.store.ResolveRange(ctx, args)
}

// ResolvePair resolves the arguments of a diff to the two snapshots it
// compares: "A B", "A..B" or "^A B" (A to B), or "A" alone (A's parent
// to A; a zero first id when A is its session's first snapshot). An end
// left out of a range is the newest snapshot of the other end's session
// (see ResolveRange).
func (r *Repository) ResolvePair(ctx context.Context, args []string) (a, b storage.ID, err error) {
	return r.store.ResolvePair(ctx, args)
}

// Read returns a snapshot's document, JSON-equal to the one saved.
func (r *Repository) Read(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	return r.store.Read(ctx, id)
}

// ReadRevision resolves a revision and reads the snapshot it names.
func (r *Repository) ReadRevision(ctx context.Context, rev string) (map[string]any, storage.Entry, error) {
	return r.store.ReadRevision(ctx, rev)
}

// ReadRest reads the snapshot id names but for its messages: every
// other member, its events and captured files. A reader of a long
// session reads the messages one at a time (MessageBlocks, Message).
func (r *Repository) ReadRest(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	return r.store.ReadRest(ctx, id)
}

// ReadPath reads what path names in the snapshot rev names, as git show
// REV:PATH reads a blob: a captured file's bytes (path as show
// --name-only prints it, or files/<path>), else a member of the
// document, path read as a JSON Pointer without its leading '/'
// (messages/3, transcript, config/model), as canonical indented JSON.
// isFile says which. An empty path is the whole document.
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

// WalkRange is Walk over what r selects: the snapshots reachable from
// r.Include and not from r.Exclude, as git log A..B and ^A B select, newest
// first. Without exclusions it streams in time order as Walk does. With
// them it walks by generation, so that excluded history hides what it
// reaches before that can be shown, and then gives what is left in time
// order; excluded history is walked only as far as it can still hide
// something.
func (r *Repository) WalkRange(ctx context.Context, rng gitstore.RevRange, fn func(storage.Entry) error) error {
	return r.store.WalkRange(ctx, rng, fn)
}

// Diff compares two snapshots. It reads only what differs: chunks and
// elements whose stored objects are the same on both sides are skipped.
func (r *Repository) Diff(ctx context.Context, a, b storage.ID) (*snapshot.Diff, error) {
	return r.store.Diff(ctx, a, b)
}

// ChangedFiles lists the captured files a snapshot changed from its
// (first) parent, added, changed (content or mode) or removed, sorted; a
// session's first snapshot changed every file it captured. With under,
// only paths equal to one of them or inside one (a folder) are listed:
// git log -- PATH reads it. Only trees are read, no file's content.
func (r *Repository) ChangedFiles(ctx context.Context, e storage.Entry, under []string) ([]string, error) {
	return r.store.ChangedFiles(ctx, e, under)
}

// Sessions lists every session, most recently active first. Sessions
// whose newest snapshot cannot be read are left out and named by a
// *DamagedSessions error returned with the others.
func (r *Repository) Sessions(ctx context.Context) ([]storage.Session, error) {
	return r.store.Sessions(ctx)
}

// SessionTip returns a session's newest snapshot id, or ZeroHash.
func (r *Repository) SessionTip(session string) (storage.ID, error) {
	return r.store.SessionTip(session)
}

// SessionNames lists the sessions' names, sorted, from the refs alone:
// no commit is read, so that shell completion stays fast with any
// history.
func (r *Repository) SessionNames(ctx context.Context) ([]string, error) {
	return r.store.SessionNames(ctx)
}

// CheckpointNames lists checkpoints as revisions name them,
// snap/<session>/<name>, sorted, from the refs alone; of one session or
// of all ("").
func (r *Repository) CheckpointNames(ctx context.Context, session string) ([]string, error) {
	return r.store.CheckpointNames(ctx, session)
}

// Checkpoints lists checkpoints, of one session or of all (""), oldest
// first. With moved, former places of moved names are listed too.
// Checkpoints whose tag is missing or damaged are left out and named by
// a *DamagedCheckpoints error returned with the others: one damaged
// checkpoint made every log fail.
func (r *Repository) Checkpoints(ctx context.Context, session string, moved bool) ([]storage.Checkpoint, error) {
	return r.store.Checkpoints(ctx, session, moved)
}

// CheckpointsBySession lists the checkpoint names of every session from one
// listing of the refs, reading no tag: session → names.
func (r *Repository) CheckpointsBySession() (map[string][]string, error) {
	return r.store.CheckpointsBySession()
}

// CheckpointsElsewhere lists the checkpoints in the place they are no
// longer written to (refs/tags/snap/, or refs/snap-tags/ with
// Options.CheckpointsInTags), which MigrateCheckpoints moves, and that
// place. Reading them costs one listing of refs.
func (r *Repository) CheckpointsElsewhere() (refs []string, prefix string, err error) {
	return r.store.CheckpointsElsewhere()
}

// FindSession reads a session argument: a session's name, a name given
// to one (NameSession), or a prefix of at least MinSessionPrefix
// characters of exactly one session's name. A prefix of several is an
// error that lists them.
func (r *Repository) FindSession(ctx context.Context, arg string) (string, error) {
	return r.store.FindSession(ctx, arg)
}

// SessionAliases lists the names given to sessions, sorted by name.
func (r *Repository) SessionAliases() ([]gitstore.SessionAlias, error) {
	return r.store.SessionAliases()
}

// TotalsProgress is Totals, telling progress, when not nil, how many of
// the documents it must count (those of snapshots written without
// totals and not remembered) it has counted, before each and after the
// last: the once-only upgrade of a repository an older version wrote.
func (r *Repository) TotalsProgress(ctx context.Context, entries []storage.Entry, progress func(done, of int)) (out []snapshot.Totals, ok []bool, err error) {
	return r.store.TotalsProgress(ctx, entries, progress)
}

// Totals gives each entry's totals: its header's when the snapshot was
// counted as it was written (and has the conversation's messages
// counted), else the totals the store counts of its document. Those are
// remembered under .git/snap/cache/, so that the document of a snapshot
// written before totals existed is read once, not on every call. ok[i]
// is false when entries[i] has no totals, which only a store that
// counts nothing (in tests) gives.
func (r *Repository) Totals(ctx context.Context, entries []storage.Entry) (out []snapshot.Totals, ok []bool, err error) {
	return r.store.Totals(ctx, entries)
}

// CodePrefix turns a code revision into the commit id or id prefix that
// Filter.Code matches: a hex prefix of four or more digits stays as given,
// HEAD, a branch or a tag is read.
func (r *Repository) CodePrefix(code string) (string, error) {
	return r.store.CodePrefix(code)
}

// ReadRewrites reads what NoteRewrites recorded; none when nothing was.
func (r *Repository) ReadRewrites(ctx context.Context) (gitstore.Rewrites, error) {
	return r.store.ReadRewrites(ctx)
}

// RemoteTips lists the sessions fetched from a remote: name → tip.
func (r *Repository) RemoteTips(remote string) (map[string]storage.ID, error) {
	return r.store.RemoteTips(remote)
}

// Save records doc as the next snapshot of a session and returns it.
// Concurrent saves to one session all land, one after another: a save
// that loses the race to move the ref retries on the new tip.
func (r *Repository) Save(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.Save(ctx, doc, o)
}

// SaveNew is Save, unless a snapshot of the session already holds the
// same document: then it returns that snapshot and false, and writes
// nothing. Importing a file twice adds it once.
func (r *Repository) SaveNew(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, bool, error) {
	return r.store.SaveNew(ctx, doc, o)
}

// SaveScanned is Save of a document read as text (snapshot.ScanDocument),
// and writes the same snapshot, byte for byte: the same blobs, trees and
// commit. It reads the messages and events one at a time: each is
// parsed from the text, redacted, encoded, counted and written as its
// blob before the next is read, so that a save holds the text and the
// ids of what it wrote, not the document (docs/design.md §7). The
// document was checked whole when scanned, so nothing is written for a
// document that is not valid.
//
// A document whose live records are not in stored order, or that only
// a reading of them all tells apart (Gemini CLI's JSONL chat), is parsed
// whole and saved as Save saves it.
func (r *Repository) SaveScanned(ctx context.Context, d *snapshot.Scanned, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.SaveScanned(ctx, d, o)
}

// Append records the next snapshot of a session as its tip plus a delta,
// without reading or writing what the tip already holds: appending one
// message writes one blob and the few trees above it. next is given the
// tip's members other than messages, events and files (snapshot.Others:
// no file notes, no empty arrays; nil for a new session), so that
// returning them as Delta.Rest keeps them. It is called again, on the
// new tip, when another writer moved the session meanwhile, so a delta
// computed from state kept in the document (a read position, say) is
// never applied twice. It returns false, and writes nothing, when the
// delta is empty.
func (r *Repository) Append(ctx context.Context, o storage.SaveOptions, next func(tipRest map[string]any) (storage.Delta, error)) (storage.Entry, bool, error) {
	return r.store.Append(ctx, o, next)
}

// Rollback records a new snapshot on target's session whose content is
// target's: the same tree, committed on top of the session's tip, so
// that all later history stays.
func (r *Repository) Rollback(ctx context.Context, target storage.ID, o storage.SaveOptions) (storage.Entry, error) {
	return r.store.Rollback(ctx, target, o)
}

// SetCheckpoint names a snapshot. The checkpoint belongs to the
// snapshot's session. Moving an existing name needs force; the former
// tag is kept under MovedPrefix.
func (r *Repository) SetCheckpoint(ctx context.Context, name string, target storage.ID, msg string, force bool) (storage.Checkpoint, error) {
	return r.store.SetCheckpoint(ctx, name, target, msg, force)
}

// DeleteCheckpoint removes a checkpoint of a session, from both places
// a checkpoint may be (see MigrateCheckpoints).
func (r *Repository) DeleteCheckpoint(ctx context.Context, session, name string) error {
	return r.store.DeleteCheckpoint(ctx, session, name)
}

// NameSession gives session (a session's name, a name already given or
// a unique prefix, see FindSession) the short name name, which every
// revision and session argument then takes. A name given to another
// session moves only with force; a session's own name is no name to
// give. About is what completion shows beside the name (the session's
// first prompt, say). It returns the alias written.
func (r *Repository) NameSession(ctx context.Context, name, session, about string, force bool) (gitstore.SessionAlias, error) {
	return r.store.NameSession(ctx, name, session, about, force)
}

// Unname removes a name given to a session; the session stays.
func (r *Repository) Unname(ctx context.Context, name string) error {
	return r.store.Unname(ctx, name)
}

// Drop removes a session: its ref, its checkpoints and its cache; with
// dryRun, it only says what it would remove. Its objects stay, named by
// the reflogs the removal writes (logs/refs/snap/<session>, kept), until
// git gc expires those: Undrop brings the session back until then.
func (r *Repository) Drop(ctx context.Context, session string, dryRun bool) (gitstore.Dropped, error) {
	return r.store.Drop(ctx, session, dryRun)
}

// Undrop brings back a session Drop removed, from the reflog the drop
// wrote: its ref at the tip it had, and those of its checkpoints that
// named snapshots of it. It refuses a session that exists, one whose
// last reflog entry is not a drop, and one whose snapshots git gc has
// removed.
func (r *Repository) Undrop(ctx context.Context, session string) (gitstore.Dropped, error) {
	return r.store.Undrop(ctx, session)
}

// Prune rewrites a session's chain to hold only the snapshots the rules
// keep, with the same content, headers and times; checkpoint tags move
// with their snapshots, and old ids keep resolving to the kept snapshots.
// It touches only the session's ref and its checkpoints: objects stay for
// git gc to collect.
func (r *Repository) Prune(ctx context.Context, session string, o gitstore.PruneOptions) (gitstore.PruneResult, error) {
	return r.store.Prune(ctx, session, o)
}

// ApplyRetention prunes a session back to the policy's maximum when it is
// due (seq being the number of its newest snapshot, as a save returns
// it), and does nothing otherwise. Savers call it after each snapshot.
func (r *Repository) ApplyRetention(ctx context.Context, session string, seq int, p gitstore.RetentionPolicy) (gitstore.PruneResult, error) {
	return r.store.ApplyRetention(ctx, session, seq, p)
}

// GC packs git-snap's objects and lets git collect the rest:
//
//   - temporary files killed writers left are removed (removeStaleTemp);
//   - every object reachable from sessions and checkpoints is written by
//     git pack-objects into a pack of its own, its deltas computed anew
//     with a wide window, so that snapshots that share most of their
//     content store it once;
//   - git prune-packed then removes the loose copies, and a pack every
//     object of which the new pack holds is removed: nothing is deleted
//     that is not in the new pack, so whatever git's reflogs, index or
//     other refs hold stays;
//   - git gc --auto does the rest, as git would.
//
// The new pack is kept (a .keep file GC marks as its own): git gc and
// git repack, --aggressive or not, leave a kept pack as it is, where
// git gc --aggressive packed the snapshots again with a narrower window
// (1.59× gzip of the transcript, not 1.32×). The next GC lets the pack
// before go: its keep is removed, and the pack with it once the new one
// holds all of it; else git gc collects what no ref reaches any more.
func (r *Repository) GC(ctx context.Context, o gitstore.GCOptions) error {
	return r.store.GC(ctx, o)
}

// MigrateCheckpoints moves every checkpoint to where checkpoints are
// written now: from refs/tags/snap/ to refs/snap-tags/ (the other way
// with Options.CheckpointsInTags). The tag objects are the same; each
// move is logged. With dryRun nothing moves.
func (r *Repository) MigrateCheckpoints(ctx context.Context, dryRun bool) ([]gitstore.Migrated, error) {
	return r.store.MigrateCheckpoints(ctx, dryRun)
}

// Push sends sessions and their checkpoints to a remote. A session that
// diverged there is refused by the remote, as git refuses a branch: pull
// first. With ForceWithLease a session this clone pruned replaces the
// remote's while the remote is as this clone last saw it. The
// remote-tracking refs then hold what was sent, as a fetch would.
func (r *Repository) Push(ctx context.Context, o gitstore.RemoteOptions) error {
	return r.store.Push(ctx, o)
}

// Fetch brings a remote's sessions into refs/remotes/<remote>/snap/.
func (r *Repository) Fetch(ctx context.Context, o gitstore.RemoteOptions) error {
	return r.store.Fetch(ctx, o)
}

// Pull fetches a remote's sessions and brings each into the local one:
// a new session is created, one behind is fast-forwarded, and one that
// diverged gets a merge snapshot whose parents are both tips, so that
// neither side is ever lost. Checkpoints the remote has and this
// repository does not are added.
func (r *Repository) Pull(ctx context.Context, o gitstore.RemoteOptions) ([]gitstore.PullResult, error) {
	return r.store.Pull(ctx, o)
}

// WriteBundle writes a git bundle (a file git bundle, git fetch and git
// snap import all read) holding the given refs — sessions under the ref
// prefix, checkpoints under refs/snap-tags/ (or refs/tags/snap/) — and everything they reach.
func (r *Repository) WriteBundle(ctx context.Context, w io.Writer, refs []string) (int, error) {
	return r.store.WriteBundle(ctx, w, refs)
}

// BundleRefs names the refs a bundle of names holds: a session's ref
// and its checkpoints' tags, as push sends them, and snap/<session>/<name>
// a checkpoint's tag alone; no names is every session. A name that is
// neither is the caller's to have checked. Each ref is named once.
func (r *Repository) BundleRefs(ctx context.Context, names []string) ([]string, error) {
	return r.store.BundleRefs(ctx, names)
}

// ImportBundle reads a bundle and brings its sessions into the local ones
// as Pull does (created, fast-forwarded or merged, never losing a side),
// and adds its checkpoints this repository lacks. It gives one result
// per session: the sessions' refs are brought in first, so that their
// checkpoints' snapshots, already in their history, change nothing more.
func (r *Repository) ImportBundle(ctx context.Context, bundle io.Reader) ([]gitstore.PullResult, error) {
	return r.store.ImportBundle(ctx, bundle)
}

// Scan audits history already saved: it reads every snapshot reachable
// from starts, each distinct stored object once, and reports what rules
// finds.
func (r *Repository) Scan(ctx context.Context, starts []storage.ID, rules *redact.Redactor, fn func(gitstore.ScanFinding) error) error {
	return r.store.Scan(ctx, starts, rules, fn)
}

// NoteRewrites records code commits rewritten into others (old → new),
// appending to what earlier rewrites recorded.
func (r *Repository) NoteRewrites(pairs [][2]storage.ID) error {
	return r.store.NoteRewrites(pairs)
}

// Redactor is the redactor every write goes through: the built-in rules
// and the settings' own.
func (r *Repository) Redactor() *redact.Redactor { return r.store.Redactor() }

// SessionRef is the full name of the ref a session is kept at.
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
