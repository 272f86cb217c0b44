package gitstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// SplitRevPath reads git's REV:PATH: the revision and the path after its
// first ':'; ok is false when spec has none.
func SplitRevPath(spec string) (rev, path string, ok bool) {
	rev, path, ok = strings.Cut(spec, ":")
	return rev, path, ok
}

// ReadPath reads what path names in the snapshot rev names, as git show
// REV:PATH reads a blob: a captured file's bytes (path as show
// --name-only prints it, or files/<path>), else a member of the
// document, path read as a JSON Pointer without its leading '/'
// (messages/3, transcript, config/model), as canonical indented JSON.
// isFile says which. An empty path is the whole document.
func (s *Store) ReadPath(ctx context.Context, rev, path string) (data []byte, isFile bool, err error) {
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return nil, false, err
	}
	e, err := s.Entry(ctx, id)
	if err != nil {
		return nil, false, err
	}
	files, err := s.Files(ctx, e)
	if err != nil {
		return nil, false, err
	}
	for _, p := range []string{path, strings.TrimPrefix(path, snapshot.MemberFiles+"/")} {
		for _, f := range files.Files {
			if f.Path == p {
				b, err := s.Blob(ctx, f.Blob)
				return b, true, err
			}
		}
	}
	doc, _, err := s.Read(ctx, id)
	if err != nil {
		return nil, false, err
	}
	v, err := pointer(doc, path)
	if err != nil {
		return nil, false, &storage.RevisionError{Rev: rev + ":" + path, Msg: fmt.Sprintf("%v; snapshot %s has the members %s (and its captured files: git snap show %s --name-only)",
			err, short(id), listSome(slices.Sorted(maps.Keys(doc))), rev)}
	}
	b, err := snapshot.MarshalIndent(v)
	return b, false, err
}

// pointer follows a JSON Pointer written without its leading '/' (with
// ~1 for '/' and ~0 for '~' in a key) into v.
func pointer(v any, path string) (any, error) {
	if path == "" {
		return v, nil
	}
	for i, tok := range strings.Split(strings.Trim(path, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		at := ""
		if i > 0 {
			at = fmt.Sprintf(" in %s", strings.Join(strings.Split(path, "/")[:i], "/"))
		}
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("names nothing: no member %q%s", tok, at)
			}
			v = next
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(x) {
				return nil, fmt.Errorf("names nothing: %q%s is not an index of a list of %d", tok, at, len(x))
			}
			v = x[n]
		default:
			return nil, fmt.Errorf("names nothing: %q%s goes into a %s", tok, at, snapshot.KindOf(x))
		}
	}
	return v, nil
}
