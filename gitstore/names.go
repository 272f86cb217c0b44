package gitstore

import (
	"context"
	"slices"
	"strings"
)

// SessionNames lists the sessions' names, sorted, from the refs alone:
// no commit is read, so that shell completion stays fast with any
// history.
func (s *Store) SessionNames(ctx context.Context) ([]string, error) {
	return s.refNames(ctx, s.prefix, s.prefix)
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
		names, err := s.refNames(ctx, prefix, strip)
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

// refNames lists the refs under prefix, each without strip.
func (s *Store) refNames(ctx context.Context, prefix, strip string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refs, err := s.refs.List(prefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(refs))
	for ref := range refs {
		out = append(out, strings.TrimPrefix(ref, strip))
	}
	slices.Sort(out)
	return out, nil
}
