package storage

import "time"

// BlockID names a block of a snapshot's messages, stored together,
// without saying how: two blocks with equal BlockIDs hold the same
// messages at the same indexes, so a reader that remembers the blocks it
// has read (a search index) reads each once however many snapshots hold
// it. It is comparable and serves as a map key.
type BlockID ID

// MessageID names one stored message the same way: equal MessageIDs
// hold equal messages.
type MessageID ID

// MessageRef is one message of a block, not yet read: its index among
// the snapshot's messages and its id.
type MessageRef struct {
	Index int
	ID    MessageID
}

// FileID is a captured file of a snapshot, by its blob: what changed
// between two snapshots is told apart without reading any content.
type FileID struct {
	Path string
	Mode string
	Blob ID
}

// FileSet is the files captured at a snapshot, by blob.
type FileSet struct {
	// ID is equal for two snapshots that captured the same files, and
	// the zero FileSetID for one that captured none: a reader comparing
	// snapshots skips those whose files did not change.
	ID    FileSetID
	Files []FileID
}

// FileSetID names a snapshot's set of captured files without saying
// how it is stored. It is comparable and serves as a map key.
type FileSetID ID

// Checkpoint is a named snapshot.
type Checkpoint struct {
	Session string
	Name    string
	Ref     string
	Tag     ID // the tag object
	Target  ID // the snapshot
	Message string
	Time    time.Time
	Moved   bool // a former place of the name, kept after a forced move
}
