package storage

import (
	"path"
	"strings"
	"time"
)

// Filter selects snapshots the way git log's options select commits.
// The zero value selects every snapshot.
type Filter struct {
	Since, Until time.Time // zero means no bound
	Label        string    // a glob (path.Match) the label must match; "" matches any
	// Carried, when not nil, holds the snapshots that have or had a
	// checkpoint; only those are selected.
	Carried map[ID]bool
	Code    string // a code commit id or id prefix; "" matches any
	// Rewritten, used with Code, holds the full ids of commits that were
	// rewritten into Code's commit. Snapshots saved at those commits
	// match too.
	Rewritten map[string]bool
}

// Match reports whether the filter selects e.
func (f Filter) Match(e Entry) bool {
	h := e.Header
	switch {
	case !f.Since.IsZero() && h.Time.Before(f.Since),
		!f.Until.IsZero() && h.Time.After(f.Until),
		f.Carried != nil && !f.Carried[e.ID],
		f.Code != "" && !strings.HasPrefix(h.Code, f.Code) && !f.Rewritten[h.Code]:
		return false
	case f.Label != "":
		ok, _ := path.Match(f.Label, h.Label)
		return ok
	}
	return true
}
