package gitstore

import "github.com/git-snap/git-snap/snapshot"

// SetCounter replaces how s counts a document's totals, each document
// whole (appends too); nil writes none, as versions before totals did.
func SetCounter(s *Store, count func(doc map[string]any, source string) snapshot.Totals) {
	s.count, s.tallies = count, false
}
