package gitstore

import (
	"context"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// SessionNames lists the sessions' names, sorted, from the refs alone:
// no commit is read, so that shell completion stays fast with any
// history.
func (s *Store) SessionNames(ctx context.Context) ([]string, error) {
	return s.refNames(ctx, s.prefix, s.prefix, func(name string) bool {
		return snapshot.CheckName("session", name) == nil
	})
}

// CheckpointNames lists checkpoints as revisions name them,
// snap/<session>/<name>, sorted, from the refs alone; of one session or
// of all ("").
func (s *Store) CheckpointNames(ctx context.Context, session string) ([]string, error) {
	var out []string
	for _, prefix := range s.checkpointPrefixes() {
		strip := prefix
		if session != "" {
			prefix += session + "/"
		}
		names, err := s.refNames(ctx, prefix, strip, func(name string) bool {
			_, _, ok := checkpointOfRef(strip + name)
			return ok
		})
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			out = append(out, "snap/"+n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// refNames lists the refs under prefix, each without strip, that ok
// accepts. Refs come from anyone a repository fetched from (plain git
// takes any name git allows, `$(…)` and `;` among them), and these lists
// end up on a shell's command line through completion: only names
// git-snap itself accepts, and so would write, are listed.
func (s *Store) refNames(ctx context.Context, prefix, strip string, ok func(string) bool) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refs, err := s.refs.List(prefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(refs))
	for ref := range refs {
		if name := strings.TrimPrefix(ref, strip); ok(name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}
