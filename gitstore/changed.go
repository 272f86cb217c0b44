package gitstore

import (
	"context"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/storage"
)

// ChangedFiles lists the captured files a snapshot changed from its
// (first) parent, added, changed (content or mode) or removed, sorted; a
// session's first snapshot changed every file it captured. With under,
// only paths equal to one of them or inside one (a folder) are listed:
// git log -- PATH reads it. Only trees are read, no file's content.
func (s *Store) ChangedFiles(ctx context.Context, e storage.Entry, under []string) ([]string, error) {
	now, err := s.Files(ctx, e)
	if err != nil {
		return nil, err
	}
	var before storage.FileSet
	if !e.Parent.IsZero() {
		pe, err := s.Entry(ctx, e.Parent)
		if err != nil {
			return nil, err
		}
		if before, err = s.Files(ctx, pe); err != nil {
			return nil, err
		}
	}
	if before.ID == now.ID {
		return nil, nil
	}
	old := make(map[string]storage.FileID, len(before.Files))
	for _, f := range before.Files {
		old[f.Path] = f
	}
	var out []string
	for _, f := range now.Files {
		if o, ok := old[f.Path]; !ok || o != f {
			out = append(out, f.Path)
		}
		delete(old, f.Path)
	}
	for p := range old {
		out = append(out, p)
	}
	out = slices.DeleteFunc(out, func(p string) bool { return !underAny(p, under) })
	slices.Sort(out)
	return out, nil
}

// underAny reports whether path is one of dirs or inside one; any path
// is when dirs is empty.
func underAny(path string, dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	for _, d := range dirs {
		d = strings.TrimSuffix(strings.TrimPrefix(d, "./"), "/")
		if d == "" || d == "." || path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}
