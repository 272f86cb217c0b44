package pack

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/storage"
)

// newGitRepo makes a repository whose history gives git material for
// deltas: one file growing commit by commit, and others beside it.
func newGitRepo(t testing.TB, commits int) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	commit(t, dir, 0, commits)
	return dir
}

// commit adds commits from+1 to to, each changing notes.md and adding
// a file of its own.
func commit(t testing.TB, dir string, from, to int) {
	t.Helper()
	for i := from + 1; i <= to; i++ {
		notes := strings.Repeat(fmt.Sprintf("line %d of the notes, long enough to be worth a delta\n", i%7), i*3)
		must(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte(notes), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644))
		gittest.Git(t, dir, "add", ".")
		gittest.Git(t, dir, "commit", "-q", "-m", fmt.Sprint("commit ", i))
	}
}

func packDir(dir string) string { return filepath.Join(dir, ".git", "objects", "pack") }

// compareWithGit reads every object git has through s, which must find
// each of them in its packs, and compares it with what git reads.
func compareWithGit(t *testing.T, s *Set, dir string) {
	t.Helper()
	objects := catAll(t, dir)
	for id, want := range objects {
		typ, data, err := s.Find(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if typ != want.typ || !bytes.Equal(data, want.data) {
			t.Fatalf("%s: %s of %d bytes, git reads %s of %d", id, typ, len(data), want.typ, len(want.data))
		}
	}
	if len(objects) < 20 {
		t.Fatalf("only %d objects compared", len(objects))
	}
}

// entryTypes counts the kinds of entry in the packs of s.
func entryTypes(t *testing.T, s *Set) map[plumbing.ObjectType]int {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	types := map[plumbing.ObjectType]int{}
	for _, p := range s.packs {
		for i := range p.count {
			off, err := p.offset(i)
			if err != nil {
				t.Fatal(err)
			}
			e, err := p.header(off)
			if err != nil {
				t.Fatal(err)
			}
			types[e.typ]++
		}
	}
	return types
}

// Objects that real git packed (offset deltas, ref deltas, 64-bit
// offsets from git's own index-pack) read as git cat-file reads them.
func TestReadsWhatGitPacked(t *testing.T) {
	dir := newGitRepo(t, 30)
	for _, c := range []struct {
		name       string
		ofsDeltas  string
		largeAbove string // index-pack's threshold for the 64-bit table; "" for none
	}{
		{"offset deltas", "true", ""},
		{"ref deltas", "false", ""},
		{"64-bit offsets", "true", "64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gittest.Git(t, dir, "-c", "repack.useDeltaBaseOffset="+c.ofsDeltas, "repack", "-adfq", "--depth=50", "--window=50")
			idxs, _ := filepath.Glob(filepath.Join(packDir(dir), "*.idx"))
			if c.largeAbove != "" {
				os.Remove(idxs[0])
				gittest.Git(t, dir, "index-pack", "--index-version=2,"+c.largeAbove, strings.TrimSuffix(idxs[0], ".idx")+".pack")
			}
			s := Open(packDir(dir), Options{})
			defer s.Close()
			compareWithGit(t, s, dir)
			if !strings.Contains(gittest.Git(t, dir, "verify-pack", "-v", idxs[0]), "chain length = 2") {
				t.Fatal("git made no delta chains to test")
			}
			types := entryTypes(t, s)
			if c.ofsDeltas == "true" && types[plumbing.OFSDeltaObject] == 0 || c.ofsDeltas == "false" && types[plumbing.REFDeltaObject] == 0 {
				t.Errorf("no deltas of the kind to test: %v", types)
			}
			if p := s.packs[0]; c.largeAbove != "" && len(p.idx)-idxTrailer-p.large < 8*(p.count-2) {
				t.Errorf("%d bytes of 64-bit offsets for %d objects", len(p.idx)-idxTrailer-p.large, p.count)
			}
		})
	}
}

// Objects spread over several packs, some in two, all read; a damaged
// copy in one pack is passed over for a good one in another.
func TestSeveralPacks(t *testing.T) {
	dir := newGitRepo(t, 5)
	gittest.Git(t, dir, "repack", "-dq")
	commit(t, dir, 5, 10)
	gittest.Git(t, dir, "repack", "-dq") // only what is new
	old := gittest.Git(t, dir, "rev-parse", "HEAD~7")
	gittest.GitIn(t, dir, old+"\n", "pack-objects", "-q", filepath.Join(packDir(dir), "pack")) // a second copy of an old commit
	s := Open(packDir(dir), Options{})
	defer s.Close()
	compareWithGit(t, s, dir)
	in := 0
	for _, p := range s.packs {
		if _, ok, _ := p.find(storage.NewID(old)); ok {
			in++
		}
	}
	if len(s.packs) != 3 || in != 2 {
		t.Fatalf("%d packs, %s in %d of them", len(s.packs), old, in)
	}

	// A pack that sorts first holds a damaged copy of HEAD's tree, and
	// the only copy of another object, damaged too.
	tree := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))
	want := catAll(t, dir)[tree]
	only := storage.NewID(strings.Repeat("ab", 20))
	b := newPackBuilder()
	b.raw(tree, append(entryHeader(plumbing.TreeObject, 5), deflate([]byte("short"))[:6]...))
	b.raw(only, append(entryHeader(plumbing.BlobObject, 5), deflate([]byte("short"))[:6]...))
	idx, pack := b.finish(false)
	writePack(t, packDir(dir), strings.Repeat("0", 40), idx, pack)
	must(t, s.Refresh())
	if len(s.packs) != 4 || s.packs[0].index != "pack-"+strings.Repeat("0", 40)+".idx" {
		t.Fatalf("damaged pack not first of %d", len(s.packs))
	}
	if _, data, err := s.Find(tree); err != nil || !bytes.Equal(data, want.data) {
		t.Errorf("tree with a damaged copy: %v", err)
	}
	if _, _, err := s.Find(only); err == nil || errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("a damaged only copy reads %v", err)
	}
}

// One Set, opened before git gc and kept across two more runs of it:
// objects moved to new packs are found, the packs gc deleted are closed.
func TestRefreshAfterGitGC(t *testing.T) {
	dir := newGitRepo(t, 5)
	gittest.Git(t, dir, "gc", "-q", "--prune=now")
	s := Open(packDir(dir), Options{})
	defer s.Close()
	compareWithGit(t, s, dir)
	first := s.packs[0]

	commit(t, dir, 5, 10)
	gittest.Git(t, dir, "gc", "-q", "--prune=now")
	compareWithGit(t, s, dir) // the new commits are in a pack s has not seen
	if len(s.packs) != 1 || s.packs[0] == first || first.idx != nil {
		t.Fatalf("after gc: %d packs, the first still open: %v", len(s.packs), first.idx != nil)
	}

	commit(t, dir, 10, 15)
	gittest.Git(t, dir, "gc", "-q", "--prune=now")
	head := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	if got := s.WithPrefix(head.String()[:6]); len(got) != 1 || got[0] != head {
		t.Errorf("prefix of a commit packed since finds %v", got)
	}
	compareWithGit(t, s, dir)

	gen := s.gen
	if _, _, err := s.Find(storage.ID{}); err != plumbing.ErrObjectNotFound {
		t.Errorf("missing object: %v", err)
	}
	if s.gen != gen {
		t.Error("a miss with no new packs reopened the packs")
	}
}

// Reads go on while git gc replaces the packs and the Set takes the new
// ones in and closes the old (run with -race).
func TestReadsDuringRefresh(t *testing.T) {
	dir := newGitRepo(t, 5)
	gittest.Git(t, dir, "gc", "-q", "--prune=now")
	objects := catAll(t, dir)
	s := Open(packDir(dir), Options{})
	defer s.Close()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				for id, want := range objects {
					select {
					case <-stop:
						return
					default:
					}
					if _, data, err := s.Find(id); err != nil || !bytes.Equal(data, want.data) {
						errs <- fmt.Errorf("%s: %v", id, err)
						return
					}
				}
			}
		}()
	}
	for i := range 3 {
		commit(t, dir, 5+i, 6+i)
		gittest.Git(t, dir, "gc", "-q", "--prune=now")
		must(t, s.Refresh())
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if gen := s.gen; gen < 4 {
		t.Errorf("the packs changed %d times, want 4", gen)
	}
}

// After Close, reads fail plainly: nothing is left mapped to read from.
func TestClosed(t *testing.T) {
	dir := newGitRepo(t, 2)
	gittest.Git(t, dir, "gc", "-q")
	s := Open(packDir(dir), Options{})
	head := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	if _, _, err := s.Find(head); err != nil {
		t.Fatal(err)
	}
	p := s.packs[0]
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Find(head); !errors.Is(err, ErrClosed) || p.idx != nil {
		t.Errorf("after Close: %v", err)
	}
	if err := s.Refresh(); !errors.Is(err, ErrClosed) || s.packs != nil {
		t.Errorf("Refresh after Close: %v", err)
	}
}

// must fails the test at once when setting it up fails.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
