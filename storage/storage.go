// Package storage says what a store of snapshots is: the roles it plays
// (SessionRefs, Snapshots, Contents, Writer, Checkpointer), the values
// they pass (ID, Entry, SaveOptions, Delta…) and the errors they return.
// It knows git no more than it knows any agent: package gitstore keeps
// snapshots in a git repository, package storage/memory keeps them in
// memory, and package storage/storagetest holds both to one behaviour.
//
// A store knows no agent. What it must count of an agent's records (the
// totals each snapshot's header keeps) and read of them (a record's
// time, which records two snapshots share) it asks the Counter and the
// snapshot.Viewer its opener gives it.
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
	// Merged holds a merge snapshot's other parents (a pull that joined
	// two histories of a session); nil for every other snapshot.
	Merged []ID
	// Tree names the snapshot's content: two snapshots with the same
	// Tree hold the same document.
	Tree   ID
	Header snapshot.Header
}

// Session is one session and its newest snapshot.
type Session struct {
	Name string
	Ref  string // where the session is kept, as git names refs
	Tip  Entry  // Tip.Header.Seq counts the snapshots
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
	// Time is the snapshot's time. When zero it is the time of the
	// newest record the snapshot adds, when records carry times (an
	// imported session keeps its dates), else the store's clock.
	Time time.Time
	// Totals, when set, are the document's totals as its writer counted
	// them; else the store counts them with its Counter.
	Totals *snapshot.Totals
}

// Delta is what a snapshot adds to its session's tip.
type Delta struct {
	Messages []any // appended to the tip's messages
	Events   []any // appended to the tip's events
	// Rest replaces every member other than messages, events and files.
	Rest map[string]any
	// Files replaces the captured files; nil keeps the tip's.
	Files []snapshot.File
	// Turn, when not 0, is the new snapshot's turn.
	Turn int
}

// Empty reports whether the delta adds nothing to a tip whose other
// members are tipRest.
func (d Delta) Empty(tipRest map[string]any) bool {
	return len(d.Messages) == 0 && len(d.Events) == 0 && d.Files == nil && snapshot.Equal(d.Rest, snapshot.Others(tipRest))
}

// Storage is a store of snapshots: every role. Like each role, it is for
// one goroutine at a time; writers that run at once each open their own,
// and lose nothing, since every write is a compare-and-swap on the
// session's tip.
type Storage interface {
	SessionRefs
	Snapshots
	Contents
	Writer
	Checkpointer
	// Close releases what the store holds open.
	Close() error
}

// Reader is the part of a store that reads sessions and never writes:
// what a viewer or a search index needs.
type Reader interface {
	SessionRefs
	Snapshots
	Contents
}

// SessionRefs lists sessions by their tips, reading no snapshot.
type SessionRefs interface {
	// Tips lists every session's tip by the ref it is kept at, the
	// sessions fetched from remotes too.
	Tips(ctx context.Context) (map[string]ID, error)
	// SessionTips lists the local sessions' tips by session name.
	SessionTips(ctx context.Context) (map[string]ID, error)
	// TipsStamp changes whenever SessionTips may have; "" when it cannot
	// be trusted to.
	TipsStamp() string
	// SessionOfRef names the session a ref of Tips keeps, and the remote
	// it was fetched from ("" for a local one).
	SessionOfRef(ref string) (session, remote string, ok bool)
	// SessionTip is a session's newest snapshot; the zero ID for none.
	SessionTip(session string) (ID, error)
}

// Snapshots reads snapshots: revisions resolved, their history and
// checkpoints, their documents and what changed between two of them.
type Snapshots interface {
	Resolve(ctx context.Context, rev string) (ID, error)
	Entry(ctx context.Context, id ID) (Entry, error)
	// Walk visits snapshots from starts, newest first, each once;
	// fn may return ErrStop to end the walk.
	Walk(ctx context.Context, starts []ID, fn func(Entry) error) error
	Checkpoints(ctx context.Context, session string, moved bool) ([]Checkpoint, error)
	Read(ctx context.Context, id ID) (map[string]any, Entry, error)
	Diff(ctx context.Context, a, b ID) (*snapshot.Diff, error)
}

// Contents reads a snapshot piece by piece, for readers that remember
// what they have read: its messages block by block, its files by blob.
type Contents interface {
	// ReadRest reads the snapshot but for its messages.
	ReadRest(ctx context.Context, id ID) (map[string]any, Entry, error)
	// Rest reads the snapshot's members other than messages, events
	// and files (snapshot.Others).
	Rest(ctx context.Context, id ID) (map[string]any, error)
	MessageBlocks(ctx context.Context, e Entry) ([]BlockID, error)
	// FirstBlocks is MessageBlocks's first n blocks (all, when fewer),
	// listing no more of them than it must.
	FirstBlocks(ctx context.Context, e Entry, n int) ([]BlockID, error)
	BlockMessages(ctx context.Context, b BlockID) ([]MessageRef, error)
	Message(ctx context.Context, id MessageID) (any, error)
	Files(ctx context.Context, e Entry) (FileSet, error)
	Blob(ctx context.Context, id ID) ([]byte, error)
}

// Writer is the part of a store that records snapshots of a session:
// what a harness or a hook that captures sessions needs.
type Writer interface {
	// Save records doc as the next snapshot of a session.
	Save(ctx context.Context, doc map[string]any, o SaveOptions) (Entry, error)
	// Append records the next snapshot of a session as its tip plus a
	// delta. next is given the tip's members other than messages,
	// events and files (nil for a new session), and is called again on
	// the new tip when another writer moved the session meanwhile. It
	// returns false, and writes nothing, when the delta is empty.
	Append(ctx context.Context, o SaveOptions, next func(tipRest map[string]any) (Delta, error)) (Entry, bool, error)
}

// Checkpointer names snapshots.
type Checkpointer interface {
	// SetCheckpoint names the snapshot target in its session; a name
	// taken is a *CheckpointExistsError unless force.
	SetCheckpoint(ctx context.Context, name string, target ID, msg string, force bool) (Checkpoint, error)
	DeleteCheckpoint(ctx context.Context, session, name string) error
}

// ReadCloser is a Reader that holds files open until it is closed.
type ReadCloser interface {
	Reader
	Close() error
}
