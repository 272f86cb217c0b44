package gitstore

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
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
		if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "pack"}); err != nil {
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
	if _, _, err := s2.st.packs.Find(storage.ID{}); err != plumbing.ErrObjectNotFound {
		t.Fatalf("missing object: %v", err)
	}
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d packs after the repack", len(idxs))
	}
	all := strings.Fields(git(t, dir, "rev-list", "--objects", "--all", "--no-object-names"))
	deltas := git(t, dir, "verify-pack", "-v", idxs[0])
	if !strings.Contains(deltas, "chain length = 2") {
		t.Fatalf("the repack made no delta chains to test:\n%s", deltas[len(deltas)-300:])
	}
	ref := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault()) // go-git's reader, the reference
	defer ref.Close()
	for _, id := range all {
		h := storage.NewID(id)
		typ, data, err := s2.st.packs.Find(h)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		want, err := ref.EncodedObject(plumbing.AnyObject, plumbing.Hash(h))
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

// A long-lived store keeps reading while git gc repacks beside it, twice:
// objects move to packs it has not seen, and the packs it had are gone.
func TestLongLivedStoreReadsAcrossGitGC(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	var ids []storage.ID
	save := func(from, to int) {
		for i := from; i <= to; i++ {
			e, err := s.Save(ctx, conversation(i*10), storage.SaveOptions{Session: "gc"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
	}
	readAll := func() {
		t.Helper()
		os.RemoveAll(filepath.Join(dir, ".git", "snap", "cache")) // read the objects, not a cache of them
		for i, id := range ids {
			got, _, err := s.Read(ctx, id)
			if err != nil {
				t.Fatalf("snapshot %d: %v", i+1, err)
			}
			if !snapshot.Equal(got, conversation((i+1)*10)) {
				t.Fatalf("snapshot %d reads differently", i+1)
			}
		}
	}
	save(1, 3)
	git(t, dir, "gc", "-q", "--prune=now")
	readAll()
	save(4, 6)
	git(t, dir, "gc", "-q", "--prune=now")
	readAll()
	if got, err := s.Resolve(ctx, ids[5].String()[:10]); err != nil || got != ids[5] {
		t.Errorf("prefix of a newly packed snapshot resolves to %s, %v", got, err)
	}
}

// TestObjectsOverTheLimitAreNotRead: a blob of zeros compresses a
// thousandfold, so a small bundle or pack can hold one that costs
// gigabytes to read; one over Options.MaxObjectBytes is refused from its
// header, loose or packed, with an error for the user.
func TestObjectsOverTheLimitAreNotRead(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := conversation(2)
	doc["messages"].([]any)[1].(map[string]any)["content"] = strings.Repeat("0", 3<<20)
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "big"}); err != nil {
		t.Fatal(err)
	}
	small, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, MaxObjectBytes: 1 << 20})
	must(t, err)
	defer small.Close()
	check := func(where string) {
		t.Helper()
		_, _, err := small.ReadRevision(ctx, "big")
		var tl *ObjectTooLargeError
		if !errors.As(err, &tl) || tl.Size < 3<<20 || tl.Max != 1<<20 {
			t.Fatalf("%s: reading a 3 MB blob with a 1 MB limit: %v", where, err)
		}
		var ue interface{ UserError() }
		if !errors.As(err, &ue) {
			t.Errorf("%s: not a user error: %v", where, err)
		}
		if _, _, err := s.ReadRevision(ctx, "big"); err != nil {
			t.Errorf("%s: within the default limit: %v", where, err)
		}
	}
	check("loose")
	git(t, dir, "gc", "-q", "--prune=now")
	small.Close()
	small, err = Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, MaxObjectBytes: 1 << 20})
	must(t, err)
	defer small.Close()
	check("packed")
}

// Loose objects are written as git writes them at its default
// core.looseCompression: zlib at best speed, read-only, no temporary
// file left, each one what git cat-file reads back; eight writers of the
// same objects at once all succeed.
func TestLooseObjectsAreGits(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := conversation(12)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := s.Save(ctx, doc, storage.SaveOptions{Session: "same"})
			errs <- err
		}()
	}
	for range 8 {
		must(t, <-errs)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
	objects := filepath.Join(dir, ".git", "objects")
	ids := strings.Fields(git(t, dir, "rev-list", "--objects", "--no-object-names", "refs/snap/same"))
	for _, id := range ids {
		p := filepath.Join(objects, id[:2], id[2:])
		raw, err := os.ReadFile(p)
		must(t, err)
		if len(raw) < 2 || raw[0] != 0x78 || raw[1] != 0x01 {
			t.Fatalf("object %s starts % x, want zlib at best speed (78 01)", id, raw[:min(2, len(raw))])
		}
		fi, err := os.Stat(p)
		must(t, err)
		if fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("object %s is writable: %v", id, fi.Mode())
		}
	}
	typ := git(t, dir, "cat-file", "-t", ids[len(ids)-1])
	if typ == "" {
		t.Fatal("git cannot read the last object")
	}
	temps, err := filepath.Glob(filepath.Join(objects, "*", "tmp_obj_*"))
	must(t, err)
	if len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// TestLooseReaderAgreesWithGit: every loose object, small or large,
// reads as git cat-file reads it; a loose file whose header is damaged,
// too long, or claims more or other bytes than it holds is an error
// naming the file, and nothing panics.
func TestLooseReaderAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := conversation(3)
	doc["messages"].([]any)[2].(map[string]any)["content"] = strings.Repeat("long message ", 20000)
	doc["files"] = map[string]any{"empty": map[string]any{"content": ""}}
	_, err := s.Save(ctx, doc, storage.SaveOptions{Session: "loose"})
	must(t, err)
	objects := filepath.Join(dir, ".git", "objects")
	for _, id := range strings.Fields(git(t, dir, "rev-list", "--objects", "--no-object-names", "refs/snap/loose")) {
		typ, data, err := s.st.readLoose(filepath.Join(objects, id[:2], id[2:]), DefaultMaxObjectBytes)
		must(t, err)
		if want := git(t, dir, "cat-file", "-t", id); typ.String() != want {
			t.Errorf("%s: type %s, git says %s", id, typ, want)
		}
		cmd := exec.Command("git", "cat-file", typ.String(), id)
		cmd.Dir = dir
		want, err := cmd.Output()
		must(t, err)
		if !bytes.Equal(data, want) {
			t.Errorf("%s: %d bytes read, git cat-file gives %d", id, len(data), len(want))
		}
	}
	bad := filepath.Join(t.TempDir(), "bad")
	for _, raw := range []string{"", "blob 5", "blob 5\x00abc", "blob x\x00abc", "blob -1\x00", "tree\x00", "commit 3\x00" + strings.Repeat("a", 2),
		"blob " + strings.Repeat("1", 70) + "\x00", strings.Repeat("b", 100)} {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		_, _ = zw.Write([]byte(raw))
		must(t, zw.Close())
		must(t, os.WriteFile(bad, z.Bytes(), 0o644))
		if _, data, err := s.st.readLoose(bad, DefaultMaxObjectBytes); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: read %q, %v; want an error naming the file", raw, data, err)
		}
	}
}

// HasEncodedObject says what git cat-file -e says of every object of a
// repository, as it moves from loose into a pack the store had not seen
// when it first looked, and of objects that are nowhere.
func TestHasObjectAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	save := func(from, to int) {
		for i := from; i <= to; i++ {
			if _, err := s.Save(ctx, conversation(i*5), storage.SaveOptions{Session: "has"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	absent := []storage.ID{storage.ID{}, storage.NewID("0123456789abcdef0123456789abcdef01234567")}
	check := func(when string) {
		t.Helper()
		all := strings.Fields(git(t, dir, "rev-list", "--objects", "--all", "--no-object-names"))
		if len(all) < 10 {
			t.Fatalf("%s: %d objects", when, len(all))
		}
		for _, id := range all {
			if err := s.st.HasEncodedObject(storage.NewID(id)); err != nil {
				t.Fatalf("%s: %s, which git has: %v", when, id, err)
			}
		}
		for _, h := range absent {
			if err := exec.Command("git", "-C", dir, "cat-file", "-e", h.String()).Run(); err == nil {
				t.Fatalf("git has %s", h)
			}
			if err := s.st.HasEncodedObject(h); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Fatalf("%s: %s, which git has not: %v", when, h, err)
			}
		}
	}
	save(1, 3)
	check("loose")
	git(t, dir, "gc", "-q", "--prune=now")
	check("packed")
	save(4, 6)
	git(t, dir, "gc", "-q", "--prune=now") // a pack the store has not listed
	check("packed since")
}
