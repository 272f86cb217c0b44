package gitstore

import (
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// SetCounter replaces how s counts a document's totals with count, each
// document whole (appends too); nil writes none, as versions before
// totals did.
func SetCounter(s *Store, count func(doc map[string]any, source string) snapshot.Totals) {
	if count == nil {
		s.counter = nil
		return
	}
	s.counter = wholeCounter(count)
}

// wholeCounter counts every document whole: it keeps no tally between
// snapshots and streams nothing.
type wholeCounter func(doc map[string]any, source string) snapshot.Totals

func (c wholeCounter) NewTally(source string) storage.Tally {
	return wholeTally{source: source}
}

func (c wholeCounter) TallyOf(doc map[string]any, source string) storage.Tally {
	return wholeTally{source: source, totals: c(doc, source)}
}

func (wholeCounter) StreamTally(map[string]any, int, []any, string, func(int) (any, error)) (storage.Tally, bool, error) {
	return nil, false, nil
}

func (wholeCounter) LiveIndex(map[string]any, int) ([]int, []string, bool) { return nil, nil, false }

func (wholeCounter) ResumeTally([]byte, []byte) (storage.Tally, error) {
	return nil, errNoTally
}

var errNoTally = errorString("a whole-document counter keeps no tally")

type errorString string

func (e errorString) Error() string { return string(e) }

type wholeTally struct {
	source string
	totals snapshot.Totals
}

func (t wholeTally) Source() string                                              { return t.source }
func (t wholeTally) Totals() snapshot.Totals                                     { return t.totals }
func (wholeTally) Record(any, string)                                            {}
func (wholeTally) Event(any)                                                     {}
func (wholeTally) Append(map[string]any, int, map[string]any, []any, []any) bool { return false }
func (wholeTally) Marshal() ([]byte, bool, []byte)                               { return nil, true, nil }
