package pack

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/storage"
)

// writtenObjects makes n objects of every kind whole-object packs hold,
// the blobs of sizes either side of the header's size steps, one
// larger than the writer's buffer.
func writtenObjects(n int) []gitObject {
	rnd := rand.New(rand.NewPCG(1, 2))
	var out []gitObject
	for i := range n {
		size := []int{0, 15, 16, 2047, 2048, 100_000}[i%6]
		if i == 3 {
			size = 3 << 20
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = byte('a' + rnd.IntN(4)) // compressible, as records are
		}
		out = append(out, gitObject{plumbing.BlobObject, b})
	}
	blob := storage.ID(plumbing.ComputeHash(plumbing.BlobObject, out[0].data))
	tree := append([]byte("100644 a.json\x00"), blob[:]...)
	treeID := storage.ID(plumbing.ComputeHash(plumbing.TreeObject, tree))
	commit := fmt.Sprintf("tree %s\nauthor t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\n\nsnapshot\n", treeID)
	return append(out, gitObject{plumbing.TreeObject, tree}, gitObject{plumbing.CommitObject, []byte(commit)})
}

// packObject is o as the writer takes it, with its id.
func packObject(o gitObject) Object {
	return Object{Type: o.typ, Data: o.data, Hash: storage.ID(plumbing.ComputeHash(o.typ, o.data))}
}

// TestWriterPackIsGits writes objects from several goroutines, reads
// them back before the pack is finished, and checks the finished pack
// and its index with git itself: git verify-pack, git fsck --strict, and
// every object as git cat-file reads it.
func TestWriterPackIsGits(t *testing.T) {
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q", "--bare")
	dir := filepath.Join(repo, "objects", "pack")
	w, err := NewWriter(dir, "tmp_test_", WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := writtenObjects(24)
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := g; i < len(objs); i += 3 {
				o := objs[i]
				if err := w.Add(packObject(o)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Add(packObject(objs[1]), packObject(objs[2])); err != nil {
		t.Fatal(err)
	}
	distinct := map[storage.ID]gitObject{}
	for _, o := range objs {
		distinct[storage.ID(plumbing.ComputeHash(o.typ, o.data))] = o
	}
	if w.Len() != len(distinct) {
		t.Errorf("%d objects written, want %d (each once)", w.Len(), len(distinct))
	}
	for id, o := range distinct {
		typ, data, err := w.Read(id)
		if err != nil || typ != o.typ || !bytes.Equal(data, o.data) {
			t.Fatalf("read back %s before the finish: %v %v (%d bytes), want %v (%d bytes)", id, err, typ, len(data), o.typ, len(o.data))
		}
	}
	if _, _, err := w.Read(storage.ID(plumbing.ComputeHash(plumbing.BlobObject, []byte("absent")))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("reading an object not written: %v", err)
	}
	name, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, repo, "verify-pack", filepath.Join(dir, name+".idx"))
	gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
	got := catAll(t, repo)
	if len(got) != len(distinct) {
		t.Errorf("git reads %d objects, want %d", len(got), len(distinct))
	}
	for id, o := range distinct {
		if g, ok := got[id]; !ok || g.typ != o.typ || !bytes.Equal(g.data, o.data) {
			t.Errorf("git reads %s as %v (%d bytes), want %v (%d bytes)", id, g.typ, len(g.data), o.typ, len(o.data))
		}
	}
	set := Open(dir, Options{})
	defer set.Close()
	for id, o := range distinct {
		if typ, data, err := set.Find(id); err != nil || typ != o.typ || !bytes.Equal(data, o.data) {
			t.Errorf("the pack reader reads %s as %v %v", id, typ, err)
		}
	}
	if leftovers(t, dir) != "" {
		t.Errorf("temporary files left: %s", leftovers(t, dir))
	}
}

// leftovers lists the files of dir that are not finished packs.
func leftovers(t *testing.T, dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "pack-") {
			out = append(out, e.Name())
		}
	}
	return strings.Join(out, " ")
}

// TestWriterRefusesWhatItCannotStand checks that a pack whose bytes
// changed on the disk after they were written is not put in place, that
// an empty writer writes nothing, and that Abort leaves nothing.
func TestWriterRefusesWhatItCannotStand(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, "tmp_test_", WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if name, err := w.Finish(); name != "" || err != nil {
		t.Errorf("an empty pack: %q %v, want nothing written", name, err)
	}
	if l := leftovers(t, dir); l != "" {
		t.Errorf("an empty pack left %s", l)
	}

	w, err = NewWriter(dir, "tmp_test_", WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range writtenObjects(6) {
		if err := w.Add(packObject(o)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.f.WriteAt([]byte{0xff}, w.end-40); err != nil { // a flipped byte in the last entry
		t.Fatal(err)
	}
	if name, err := w.Finish(); err == nil {
		t.Errorf("a pack damaged on the disk was put in place as %s", name)
	}
	if l := leftovers(t, dir); l != "" {
		t.Errorf("a refused pack left %s", l)
	}

	w, err = NewWriter(dir, "tmp_test_", WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(packObject(writtenObjects(1)[0])); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if l := leftovers(t, dir); l != "" {
		t.Errorf("an aborted pack left %s", l)
	}
	if err := w.Add(packObject(gitObject{plumbing.BlobObject, []byte("late")})); err == nil {
		t.Error("an aborted writer took an object")
	}
	if err := w.Add(Object{Type: plumbing.OFSDeltaObject, Data: []byte("x")}); err == nil {
		t.Error("a delta was taken as a whole object")
	}
}
