package report

import (
	"github.com/git-snap/git-snap/storage"
)

// Store is what a report reads a session from: snapshots with their
// history and checkpoints, and their contents piece by piece, so that
// a long session is read one record at a time (session.Records).
type Store interface {
	storage.Snapshots
	storage.Contents
}
