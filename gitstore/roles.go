package gitstore

import (
	"github.com/git-snap/git-snap/storage"
)

// The roles a store plays for packages that need only part of it. *Store
// plays them all; like it, each is for one goroutine at a time. How a
// snapshot is laid out in git stays the store's: what readers cache is
// keyed by opaque ids (BlockID, MessageID, FileSetID) and blob ids.
var (
	_ storage.Reader = (*Store)(nil)
	_ storage.Writer = (*Store)(nil)
)
