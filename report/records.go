package report

import "github.com/git-snap/git-snap/gitstore"

// Store is what a report reads a session from: snapshots with their
// history and checkpoints, and their contents piece by piece, so that
// a long session is read one record at a time (gitstore.LiveRecords).
type Store interface {
	gitstore.Snapshots
	gitstore.Contents
}
