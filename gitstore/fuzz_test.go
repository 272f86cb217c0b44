package gitstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// FuzzResolve: any revision string resolves to a snapshot or gives a
// RevisionError; nothing panics, nothing else goes wrong.
func FuzzResolve(f *testing.F) {
	ctx := context.Background()
	_, s := newRepo(f)
	var ids []string
	for i := 1; i <= 3; i++ {
		e, err := s.Save(ctx, conversation(i), storage.SaveOptions{Session: "s"})
		if err != nil {
			f.Fatal(err)
		}
		ids = append(ids, e.ID.String())
	}
	if _, err := s.SetCheckpoint(ctx, "cp", s.mustResolve(f, "s~1"), "", false); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"s", "s~1", "s^^", "s~", "s^0", "s~99999999999999999999", "snap/s/cp", "snap/s/cp~1",
		"refs/snap/s", "refs/../../etc/passwd", ids[0][:7], ids[1], "~", "^", "", "-s", "s:x", "main", "HEAD", "s@{1}", "snap//s"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rev string) {
		id, err := s.Resolve(ctx, rev)
		var re *storage.RevisionError
		switch {
		case err == nil:
			if _, err := s.Entry(ctx, id); err != nil {
				t.Fatalf("%q resolved to %s, which is not a snapshot: %v", rev, id, err)
			}
		case !errors.As(err, &re) && !strings.Contains(err.Error(), "is not a git-snap snapshot"):
			t.Fatalf("%q: %v is not a RevisionError", rev, err)
		}
	})
}

func (s *Store) mustResolve(t testing.TB, rev string) [20]byte {
	id, err := s.Resolve(context.Background(), rev)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
