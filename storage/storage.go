// Package storage defines what a store of snapshots is: the interfaces
// it implements (SessionRefs, Snapshots, Contents, Writer,
// Checkpointer), the values they pass (ID, Entry, SaveOptions, Delta…)
// and the errors they return. It is independent of git, just as it is
// of any agent. Package gitstore keeps snapshots in a git repository,
// package storage/memory keeps them in memory, and package
// storage/storagetest checks that both behave the same way.
//
// A store knows nothing about agents. To count an agent's records (for
// the totals in each snapshot's header) and to read them (a record's
// time, or which records two snapshots share), it uses the Counter and
// the snapshot.Viewer passed in by whoever opens it.
package storage

import (
	"context"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Entry is a snapshot as the log sees it: its ids and header, without
// its content.
type Entry struct {
	ID     ID
	Parent ID // zero for a session's first snapshot
	// Merged holds a merge snapshot's other parents (from a pull that
	// joined two histories of a session); nil for every other snapshot.
	Merged []ID
	// Tree identifies the snapshot's content: two snapshots with the same
	// Tree hold the same document.
	Tree   ID
	Header snapshot.Header
}

// Session is one session and its newest snapshot.
type Session struct {
	Name string
	Ref  string // the full name of the ref that holds the session
	Tip  Entry  // the newest snapshot; Tip.Header.Seq is the number of snapshots
}

// SaveOptions describe a new snapshot.
type SaveOptions struct {
	Session    string
	Turn       int
	Label      string
	Source     string // "cli" when empty
	Message    string
	Code       string // the work tree's commit; see codestate.Read
	Dirty      bool
	RollbackOf string
	// Time is the snapshot's time. When zero, it is the time of the
	// newest record the snapshot adds, if records carry times (so an
	// imported session keeps its dates), or else the store's clock.
	Time time.Time
	// Totals, when set, holds the document's totals as its writer
	// computed them. Otherwise the store computes them with its Counter.
	Totals *snapshot.Totals
}

// Delta is what a new snapshot adds to its session's newest snapshot.
type Delta struct {
	Messages []any // appended to the newest snapshot's messages
	Events   []any // appended to the newest snapshot's events
	// Others replaces every member other than messages, events and files.
	Others map[string]any
	// Files replaces the captured files; nil keeps the newest snapshot's.
	Files []snapshot.File
	// Turn, when not 0, is the new snapshot's turn.
	Turn int
}

// Empty reports whether the delta adds nothing to a newest snapshot
// whose other members are tipRest.
func (d Delta) Empty(tipRest map[string]any) bool {
	return len(d.Messages) == 0 && len(d.Events) == 0 && d.Files == nil && snapshot.Equal(d.Others, snapshot.Others(tipRest))
}

// Storage is a store of snapshots that implements every interface of
// this package. Like each of them, it must be used by one goroutine at a
// time. Writers that run concurrently each open their own store, and
// they lose no data, because every write is a compare-and-swap on the
// session's newest snapshot.
type Storage interface {
	SessionRefs
	Snapshots
	Contents
	Writer
	Checkpointer
	// Close releases the resources the store holds open.
	Close() error
}

// Reader is the part of a store that reads sessions and never writes,
// which is what a viewer or a search index needs.
type Reader interface {
	SessionRefs
	Snapshots
	Contents
}

// SessionRefs lists sessions by their newest snapshots (tips), without
// reading any snapshot.
type SessionRefs interface {
	// Tips maps the ref of every session, including sessions fetched
	// from remotes, to the session's newest snapshot.
	Tips(ctx context.Context) (map[string]ID, error)
	// SessionTips maps the name of every local session to its newest
	// snapshot.
	SessionTips(ctx context.Context) (map[string]ID, error)
	// TipsStamp returns a value that changes whenever SessionTips may
	// have changed, or "" when the stamp cannot be trusted.
	TipsStamp() string
	// SessionOfRef returns the session that a ref listed by Tips holds,
	// and the remote it was fetched from ("" for a local session).
	SessionOfRef(ref string) (session, remote string, ok bool)
	// SessionTip returns a session's newest snapshot, or the zero ID if
	// the session has none.
	SessionTip(session string) (ID, error)
}

// Snapshots reads snapshots: it resolves revisions, and reads their
// history, checkpoints, documents, and the changes between two of them.
type Snapshots interface {
	Resolve(ctx context.Context, rev string) (ID, error)
	Entry(ctx context.Context, id ID) (Entry, error)
	// Walk visits the snapshots reachable from starts, newest first, each
	// once. fn may return ErrStop to end the walk.
	Walk(ctx context.Context, starts []ID, fn func(Entry) error) error
	Checkpoints(ctx context.Context, session string, moved bool) ([]Checkpoint, error)
	Read(ctx context.Context, id ID) (map[string]any, Entry, error)
	Diff(ctx context.Context, a, b ID) (*snapshot.Diff, error)
}

// Contents reads a snapshot piece by piece, for readers that cache what
// they have read: its messages block by block, and its files by blob.
type Contents interface {
	// ReadWithoutMessages reads the snapshot except for its messages.
	ReadWithoutMessages(ctx context.Context, id ID) (map[string]any, Entry, error)
	// Others reads the snapshot's members other than messages, events
	// and files (snapshot.Others).
	Others(ctx context.Context, id ID) (map[string]any, error)
	MessageBlocks(ctx context.Context, e Entry) ([]BlockID, error)
	// FirstBlocks returns the first n blocks of MessageBlocks (all of
	// them, when there are fewer), listing no more blocks than needed.
	FirstBlocks(ctx context.Context, e Entry, n int) ([]BlockID, error)
	BlockMessages(ctx context.Context, b BlockID) ([]MessageRef, error)
	Message(ctx context.Context, id MessageID) (any, error)
	Files(ctx context.Context, e Entry) (FileSet, error)
	Blob(ctx context.Context, id ID) ([]byte, error)
}

// Writer is the part of a store that records snapshots of a session,
// which is what a harness or a hook that captures sessions needs.
type Writer interface {
	// Save records doc as the next snapshot of a session.
	Save(ctx context.Context, doc map[string]any, o SaveOptions) (Entry, error)
	// Append records the next snapshot of a session as its newest
	// snapshot plus a delta. next receives the newest snapshot's members
	// other than messages, events and files (nil for a new session). If
	// another writer updates the session in the meantime, next is called
	// again with the new newest snapshot. Append returns false, and
	// writes nothing, when the delta is empty.
	Append(ctx context.Context, o SaveOptions, next func(tipRest map[string]any) (Delta, error)) (Entry, bool, error)
}

// Checkpointer names snapshots.
type Checkpointer interface {
	// SetCheckpoint gives the snapshot target a name in its session. If
	// the name is already used, it returns a *CheckpointExistsError,
	// unless force is set.
	SetCheckpoint(ctx context.Context, name string, target ID, msg string, force bool) (Checkpoint, error)
	DeleteCheckpoint(ctx context.Context, session, name string) error
}

// ReadCloser is a Reader that holds files open until it is closed.
type ReadCloser interface {
	Reader
	Close() error
}
