package gitstore

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func objectBytes(t *testing.T, o plumbing.EncodedObject) []byte {
	t.Helper()
	r, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every object of a repacked repository (deep delta chains, offset and
// ref deltas) reads the same through the mapped pack index as through
// go-git's own pack reader.
func TestPackReaderAgreesWithGoGit(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	for i := 1; i <= 40; i++ {
		doc := conversation(i * 7)
		doc["files"] = map[string]any{"notes.md": map[string]any{"content": strings.Repeat("line of notes\n", i)}}
		if _, err := s.Save(ctx, doc, SaveOptions{Session: "pack"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, deltaBase := range []string{"true", "false"} { // offset deltas, then ref deltas
		git(t, dir, "-c", "repack.useDeltaBaseOffset="+deltaBase, "repack", "-adfq", "--depth=50", "--window=50")
		comparePacked(t, dir)
	}
}

func comparePacked(t *testing.T, dir string) {
	ctx := context.Background()
	s2 := openStore(t, dir)
	if _, _, err := s2.st.packed(plumbing.ZeroHash); err != plumbing.ErrObjectNotFound {
		t.Fatalf("missing object: %v", err)
	}
	if len(s2.st.packs) != 1 {
		t.Fatalf("%d packs mapped", len(s2.st.packs))
	}
	all := strings.Fields(git(t, dir, "rev-list", "--objects", "--all", "--no-object-names"))
	deltas := git(t, dir, "verify-pack", "-v", s2.st.packs[0].file.Name()[:len(s2.st.packs[0].file.Name())-5]+".idx")
	if !strings.Contains(deltas, "chain length = 2") {
		t.Fatalf("the repack made no delta chains to test:\n%s", deltas[len(deltas)-300:])
	}
	for _, id := range all {
		h := plumbing.NewHash(id)
		typ, data, err := s2.st.packed(h)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		want, err := s2.st.Storage.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		if typ != want.Type() || !bytes.Equal(data, objectBytes(t, want)) {
			t.Fatalf("%s: %s of %d bytes, go-git reads %s", id, typ, len(data), want.Type())
		}
	}
	// And the store reads every snapshot through it.
	tip, _ := s2.SessionTip("pack")
	if _, _, err := s2.Read(ctx, tip); err != nil {
		t.Fatal(err)
	}
	if got, err := s2.Resolve(ctx, tip.String()[:9]); err != nil || got != tip {
		t.Errorf("packed id prefix resolves to %s, %v", got, err)
	}
	t.Logf("%d objects compared", len(all))
}
