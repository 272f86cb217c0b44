package storage

import "time"

// BlockID identifies a block of a snapshot's messages that are stored
// together, without exposing how they are stored. Two blocks with equal
// BlockIDs hold the same messages at the same indexes, so a reader that
// caches the blocks it has read (such as a search index) reads each
// block once, however many snapshots hold it. It is comparable and can
// be used as a map key.
type BlockID ID

// MessageID identifies one stored message in the same way: equal
// MessageIDs identify equal messages.
type MessageID ID

// MessageRef refers to one message of a block that has not been read
// yet: its index among the snapshot's messages, and its id.
type MessageRef struct {
	Index int
	ID    MessageID
}

// FileID identifies a captured file of a snapshot by its blob, so that
// changes between two snapshots can be found without reading any
// content.
type FileID struct {
	Path string
	Mode string
	Blob ID
}

// FileSet lists the files captured in a snapshot, by blob.
type FileSet struct {
	// ID is equal for two snapshots that captured the same files, and is
	// the zero FileSetID for a snapshot that captured none. A reader
	// comparing snapshots can skip those whose files did not change.
	ID    FileSetID
	Files []FileID
}

// FileSetID identifies a snapshot's set of captured files without
// exposing how it is stored. It is comparable and can be used as a map
// key.
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
	Moved   bool // a previous target of the name, kept after a forced move
}
