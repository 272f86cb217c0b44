package gitstore

import (
	"path"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Filter selects snapshots as git log's options select commits. The zero
// value selects every snapshot.
type Filter struct {
	Since, Until time.Time // zero: no bound
	Label        string    // a glob (path.Match) the label must match; "": any
	// Carried, when not nil, holds the snapshots that carry or carried a
	// checkpoint: only those are selected.
	Carried map[plumbing.Hash]bool
	Code    string // a code commit id or id prefix (see CodePrefix); "": any
	// Rewritten, with Code, holds the full ids of commits rewritten into
	// Code's (Rewrites.Before): snapshots taken at them match too.
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

// CodePrefix turns a code revision into the commit id or id prefix that
// Filter.Code matches: a hex prefix of four or more digits stays as given,
// HEAD, a branch or a tag is read.
func (s *Store) CodePrefix(code string) (string, error) {
	if code == "" {
		return "", nil
	}
	if len(code) >= 4 && isHex(code) {
		return strings.ToLower(code), nil
	}
	id, err := s.CodeRef(code)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}
