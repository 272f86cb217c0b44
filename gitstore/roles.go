package gitstore

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
)

// The roles a store plays for packages that need only part of it. *Store
// plays them all; like it, each is for one goroutine at a time. How a
// snapshot is laid out in git stays the store's: what readers cache is
// keyed by opaque ids (BlockID, MessageID, FileSetID) and blob ids.
var (
	_ Reader = (*Store)(nil)
	_ Writer = (*Store)(nil)
)

// Reader is the part of a store that reads sessions and never writes:
// what a viewer or a search index needs.
type Reader interface {
	// Paths says where the repository is, for caches kept beside it.
	Paths() Paths
	SessionRefs
	Snapshots
	Contents
}

// SessionRefs lists sessions by their tips, reading refs only.
type SessionRefs interface {
	Tips(ctx context.Context) (map[string]plumbing.Hash, error)
	SessionTips(ctx context.Context) (map[string]plumbing.Hash, error)
	TipsStamp() string
	SessionOfRef(ref string) (session, remote string, ok bool)
	SessionTip(session string) (plumbing.Hash, error)
}

// Snapshots reads snapshots: revisions resolved, their history and
// checkpoints, their documents and what changed between two of them.
// It is what a report of a session needs.
type Snapshots interface {
	Resolve(ctx context.Context, rev string) (plumbing.Hash, error)
	Entry(ctx context.Context, id plumbing.Hash) (Entry, error)
	Walk(ctx context.Context, starts []plumbing.Hash, fn func(Entry) error) error
	Checkpoints(ctx context.Context, session string, moved bool) ([]Checkpoint, error)
	Read(ctx context.Context, id plumbing.Hash) (map[string]any, Entry, error)
	Diff(ctx context.Context, a, b plumbing.Hash) (*snapshot.Diff, error)
}

// Contents reads a snapshot piece by piece, for readers that remember
// what they have read: its messages block by block, its files by blob.
type Contents interface {
	ReadRest(ctx context.Context, id plumbing.Hash) (map[string]any, Entry, error)
	MessageBlocks(ctx context.Context, e Entry) ([]BlockID, error)
	HasFirstRecords(ctx context.Context, e Entry, key FirstKey) (bool, error)
	BlockMessages(ctx context.Context, b BlockID) ([]MessageRef, error)
	Message(ctx context.Context, id MessageID) (any, error)
	Files(ctx context.Context, e Entry) (FileSet, error)
	Blob(ctx context.Context, id plumbing.Hash) ([]byte, error)
}

// Writer is the part of a store that records snapshots of a session:
// what a harness or a hook that captures sessions needs.
type Writer interface {
	Save(ctx context.Context, doc map[string]any, o SaveOptions) (Entry, error)
	Append(ctx context.Context, o SaveOptions, next func(tipRest map[string]any) (Delta, error)) (Entry, bool, error)
}
