package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// A scanned save skips the blobs its session's tip holds; when another
// writer replaces that tip before the commit (a drop and a new save:
// the old tip's objects left unreachable, in a pack git may prune), the
// blobs skipped are written again, loose and fresh, as Save writes its
// objects again on a new tip.
func TestScannedSaveOnAReplacedTip(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	if _, err := s.Save(ctx, conversation(30), storage.SaveOptions{Session: "p"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "gc", "-q")
	data, err := snapshot.Marshal(conversation(31))
	must(t, err)
	d, err := snapshot.ScanDocument(data, snapshot.Limits{})
	must(t, err)
	sv, err := s.startScanned(d, storage.SaveOptions{Session: "p"})
	if err != nil || sv == nil {
		t.Fatalf("%v %v", sv, err)
	}
	must(t, sv.writeElements(ctx))
	if len(sv.reused) != 30 {
		t.Fatalf("%d blobs reused, want the tip's 30", len(sv.reused))
	}
	h, objs, err := sv.finish()
	must(t, err)
	// Meanwhile, another writer.
	if _, err := s.Drop(ctx, "p", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, map[string]any{"other": true}, storage.SaveOptions{Session: "p"}); err != nil {
		t.Fatal(err)
	}
	e, err := s.commitWritten(ctx, h, objs[len(objs)-1].Hash, objs, &sv.written, sv.kept)
	must(t, err)
	for _, id := range sv.reused {
		hex := id.String()
		if _, err := os.Stat(filepath.Join(dir, ".git", "objects", hex[:2], hex[2:])); err != nil {
			t.Errorf("blob %s of the tip replaced not written again: %v", id, err)
		}
	}
	got, _, err := s.Read(ctx, e.ID)
	must(t, err)
	if !snapshot.Equal(got, conversation(31)) || e.Header.Seq != 2 {
		t.Errorf("snapshot #%d reads back otherwise", e.Header.Seq)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
}
