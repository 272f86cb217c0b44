package layout

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// repo is a temporary repository that git itself writes: objects made by
// Build are handed to git hash-object, which checks their format and
// computes their ids, and the Reader reads them back from disk.
type repo struct {
	t   *testing.T
	dir string
	r   Reader
}

func newRepo(t *testing.T) *repo {
	dir := gittest.Repo(t)
	st := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
	t.Cleanup(func() { st.Close() })
	return &repo{t: t, dir: dir, r: Reader{
		GetTree: func(h storage.ID) (*gitobj.Tree, error) {
			t, err := object.GetTree(st, plumbing.Hash(h)) // go-git's reader, not the store's
			if err != nil {
				return nil, err
			}
			out := &gitobj.Tree{Hash: h}
			for _, e := range t.Entries {
				out.Entries = append(out.Entries, gitobj.TreeEntry{Name: e.Name, Mode: e.Mode, Hash: storage.ID(e.Hash)})
			}
			return out, nil
		},
		GetBlob: func(h storage.ID) ([]byte, error) {
			o, err := st.EncodedObject(plumbing.BlobObject, plumbing.Hash(h))
			if err != nil {
				return nil, err
			}
			rd, err := o.Reader()
			if err != nil {
				return nil, err
			}
			defer rd.Close()
			return io.ReadAll(rd)
		},
	}}
}

func (g *repo) git(args ...string) string {
	g.t.Helper()
	return gittest.Git(g.t, g.dir, args...)
}

// write stores objs with git hash-object, one git per object type, and
// fails when git computes another id than Build did.
func (g *repo) write(objs []gitobj.Object) {
	g.t.Helper()
	tmp := g.t.TempDir()
	paths := map[plumbing.ObjectType][]string{}
	want := map[plumbing.ObjectType][]string{}
	for i, o := range objs {
		p := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.WriteFile(p, o.Data, 0o644); err != nil {
			g.t.Fatal(err)
		}
		paths[o.Type] = append(paths[o.Type], p)
		want[o.Type] = append(want[o.Type], o.Hash.String())
	}
	for typ, ps := range paths {
		got := gittest.GitIn(g.t, g.dir, strings.Join(ps, "\n")+"\n", "hash-object", "-w", "-t", typ.String(), "--stdin-paths")
		if got != strings.Join(want[typ], "\n") {
			g.t.Fatalf("git hashes the %s objects as\n%s\nwant\n%s", typ, got, strings.Join(want[typ], "\n"))
		}
	}
}

// build lays out add on base, stores the objects and returns the root.
func (g *repo) build(base *Tree, add *snapshot.Parts, h *snapshot.Header) storage.ID {
	g.t.Helper()
	objs, err := Build(g.r, base, add, h)
	if err != nil {
		g.t.Fatal(err)
	}
	g.write(objs)
	return objs[len(objs)-1].Hash
}

func (g *repo) open(root storage.ID) *Tree {
	g.t.Helper()
	tree, err := g.r.Open(root)
	if err != nil {
		g.t.Fatal(err)
	}
	return tree
}

func messages(from, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"role": "user", "content": fmt.Sprintf("message %d", from+i)}
	}
	return out
}

func TestBuildWritesWhatGitReadsAndReadsItBack(t *testing.T) {
	g := newRepo(t)
	add := &snapshot.Parts{
		Others:   map[string]any{"settings": map[string]any{"model": "m"}},
		Messages: messages(0, 3),
		Events:   []any{map[string]any{"event": "start"}},
		Files: []snapshot.File{
			{Path: "a.txt", Mode: "100644", Content: []byte("a\n")},
			{Path: "bin/run", Mode: "100755", Content: []byte("#!/bin/sh\n")},
		},
	}
	var h snapshot.Header
	root := g.build(nil, add, &h)
	if h.Messages != 3 || h.Events != 1 || h.Files != 2 {
		t.Errorf("header counts %d messages, %d events, %d files", h.Messages, h.Events, h.Files)
	}
	g.git("fsck", "--strict", "--no-dangling", root.String())
	want := strings.Join([]string{
		"100644 blob .git-snap",
		"100644 blob events/0000/000000.json",
		"100644 blob files/a.txt",
		"100755 blob files/bin/run",
		"100644 blob messages/0000/000000.json",
		"100644 blob messages/0000/000001.json",
		"100644 blob messages/0000/000002.json",
		"100644 blob snapshot.json",
	}, "\n")
	if got := g.git("ls-tree", "-r", "--format=%(objectmode) %(objecttype) %(path)", root.String()); got != want {
		t.Errorf("git ls-tree -r:\n%s\nwant\n%s", got, want)
	}
	if got := g.git("cat-file", "blob", root.String()+":"+FormatFile); got+"\n" != Marker {
		t.Errorf("the marker is %q", got)
	}
	if got := g.git("cat-file", "blob", root.String()+":messages/0000/000001.json"); got != "{\n  \"content\": \"message 1\",\n  \"role\": \"user\"\n}" {
		t.Errorf("message 1 is stored as\n%s", got)
	}

	tree := g.open(root)
	rest, err := g.r.Document(tree)
	if err != nil || !reflect.DeepEqual(rest, add.Others) {
		t.Errorf("Document = %v, %v", rest, err)
	}
	msgs, err := g.r.Load(tree.Messages)
	if err != nil || !reflect.DeepEqual(msgs, add.Messages) {
		t.Errorf("Load(messages) = %v, %v", msgs, err)
	}
	files, err := g.r.Files(tree.Files)
	if err != nil || !reflect.DeepEqual(files, add.Files) {
		t.Errorf("Files = %v, %v", files, err)
	}
}

// Chunks hold ChunkSize elements: the element after a full chunk opens
// the next, and appending reopens only the last chunk, keeping full ones
// by their hash.
func TestChunkBoundaries(t *testing.T) {
	for _, n := range []int{ChunkSize - 1, ChunkSize, ChunkSize + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := newRepo(t)
			var h snapshot.Header
			root := g.build(nil, &snapshot.Parts{Others: map[string]any{}, Messages: messages(0, n)}, &h)
			g.git("fsck", "--strict", "--no-dangling", root.String())
			chunks := strings.Fields(g.git("ls-tree", "--name-only", root.String()+":"+MessagesDir))
			wantChunks := []string{"0000"}
			if n > ChunkSize {
				wantChunks = append(wantChunks, "0001")
			}
			if !reflect.DeepEqual(chunks, wantChunks) {
				t.Fatalf("chunks %v, want %v", chunks, wantChunks)
			}
			last := strings.Fields(g.git("ls-tree", "--name-only", root.String()+":"+MessagesDir+"/"+chunks[len(chunks)-1]))
			if want := n - (len(chunks)-1)*ChunkSize; len(last) != want || "messages/"+chunks[len(chunks)-1]+"/"+last[len(last)-1] != elementPath(MessagesDir, n-1) {
				t.Errorf("the last chunk holds %d elements up to %s, want %d up to %s", len(last), last[len(last)-1], want, elementPath(MessagesDir, n-1))
			}
			first := g.git("rev-parse", root.String()+":messages/0000")

			// Append one more on top of it.
			base := g.open(root)
			next := g.build(base, &snapshot.Parts{Others: map[string]any{}, Messages: messages(n, 1)}, &h)
			if h.Messages != n+1 {
				t.Errorf("after the append the header counts %d messages, want %d", h.Messages, n+1)
			}
			if got := g.git("rev-parse", next.String()+":messages/0000"); n >= ChunkSize && got != first {
				t.Errorf("the full chunk 0000 was rewritten: %s, was %s", got, first)
			}
			msgs, err := g.r.Load(g.open(next).Messages)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(msgs, messages(0, n+1)) {
				t.Errorf("read back %d messages, not the %d appended in order", len(msgs), n+1)
			}
		})
	}
}

func TestElementNames(t *testing.T) {
	for i, want := range map[int]string{0: "messages/0000/000000.json", 127: "messages/0000/000127.json", 128: "messages/0001/000128.json", 130: "messages/0001/000130.json"} {
		if got := elementPath(MessagesDir, i); got != want {
			t.Errorf("elementPath(%d) = %s, want %s", i, got, want)
		}
		if got, ok := ElementIndex(want[len("messages/0000/"):]); !ok || got != i {
			t.Errorf("ElementIndex(%s) = %d, %v", want, got, ok)
		}
	}
	for _, bad := range []string{"x.json", "-1.json", "000001", "000001.txt"} {
		if _, ok := ElementIndex(bad); ok {
			t.Errorf("ElementIndex(%q) accepted it", bad)
		}
	}
}

// Diffing reads neither full chunks nor elements both sides share.
func TestSparseSkipsWhatBothShare(t *testing.T) {
	g := newRepo(t)
	var h snapshot.Header
	a := g.open(g.build(nil, &snapshot.Parts{Others: map[string]any{}, Messages: messages(0, 2*ChunkSize+2)}, &h))
	b := g.open(g.build(a, &snapshot.Parts{Others: map[string]any{}, Messages: messages(2*ChunkSize+2, 1)}, &h))
	ea, eb, err := g.r.Sparse(a.Messages, b.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if len(ea) != 2*ChunkSize+2 || len(eb) != 2*ChunkSize+3 {
		t.Fatalf("Sparse gave %d and %d elements", len(ea), len(eb))
	}
	for i, v := range eb {
		if _, same := v.(snapshot.Unchanged); same != (i < 2*ChunkSize+2) {
			t.Errorf("element %d: %v", i, v)
		}
	}
}

// mktree makes a snapshot root with the given marker and files/ entries,
// the way another tool could, with git alone.
func (g *repo) mktree(marker string, files ...string) storage.ID {
	g.t.Helper()
	hash := func(content string) string { return gittest.GitIn(g.t, g.dir, content, "hash-object", "-w", "--stdin") }
	listing := ""
	if marker != "" {
		listing += fmt.Sprintf("100644 blob %s\t%s\n", hash(marker), FormatFile)
	}
	listing += fmt.Sprintf("100644 blob %s\t%s\n", hash("{}\n"), DocumentFile)
	if len(files) > 0 {
		dir := gittest.GitIn(g.t, g.dir, strings.Join(files, "\n")+"\n", "mktree")
		listing += fmt.Sprintf("040000 tree %s\t%s\n", dir, FilesDir)
	}
	return storage.NewID(gittest.GitIn(g.t, g.dir, listing, "mktree"))
}

func TestOpenRefusesOtherFormats(t *testing.T) {
	g := newRepo(t)
	if _, err := g.r.Open(g.mktree(Marker)); err != nil {
		t.Fatalf("format 1 made by git: %v", err)
	}
	for marker, want := range map[string]string{
		"git-snap format 2\n": `unknown snapshot format "git-snap format 2"; a newer git-snap may read it`,
		"git-snap format 1":   `unknown snapshot format "git-snap format 1"`,
		"":                    "is not a git-snap snapshot (no .git-snap or snapshot.json)",
	} {
		if _, err := g.r.Open(g.mktree(marker)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("marker %q: Open gave %v, want %q", marker, err, want)
		}
	}
}

// Trees may come from anyone: Files refuses paths that could leave a
// work tree or enter a .git directory, and entries that are not files.
func TestFilesRefusesUnsafeTrees(t *testing.T) {
	g := newRepo(t)
	blob := gittest.GitIn(t, g.dir, "x\n", "hash-object", "-w", "--stdin")
	hooks := gittest.GitIn(t, g.dir, fmt.Sprintf("100755 blob %s\tpost-checkout\n", blob), "mktree")
	head := g.git("rev-parse", "HEAD")
	for entry, want := range map[string]string{
		"040000 tree " + hooks + "\t.git":  `unsafe file: path ".git" goes into a .git directory`,
		"040000 tree " + hooks + "\t.GIT.": "goes into a .git directory",
		"100644 blob " + blob + "\ta\\b":   "must be relative, with forward slashes",
		"160000 commit " + head + "\tsub":  "the snapshot holds sub with mode 160000, which is not a file",
	} {
		tree := g.open(g.mktree(Marker, entry))
		if _, err := g.r.Files(tree.Files); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Files gave %v, want %q", entry, err, want)
		}
	}
}

func TestElementsRefusesStrangeEntries(t *testing.T) {
	g := newRepo(t)
	blob := gittest.GitIn(t, g.dir, "{}\n", "hash-object", "-w", "--stdin")
	chunk := gittest.GitIn(t, g.dir, fmt.Sprintf("100644 blob %s\tnotes.txt\n", blob), "mktree")
	dir := storage.NewID(gittest.GitIn(t, g.dir, fmt.Sprintf("040000 tree %s\t0000\n", chunk), "mktree"))
	if _, _, err := g.r.Elements(dir, nil); err == nil || !strings.Contains(err.Error(), "unexpected entry 0000/notes.txt") {
		t.Errorf("Elements gave %v", err)
	}
}

// BuildStored, given the ids of blobs written already, makes the tree
// Build makes of the elements themselves, and returns its objects but
// those blobs: at chunk boundaries, with events and files beside, and
// (with GIT_SNAP_LONG_TESTS) past a million elements, where names grow
// a digit and sort otherwise than elements are numbered.
func TestBuildStoredMakesBuildsTree(t *testing.T) {
	sizes := []int{0, 1, ChunkSize - 1, ChunkSize, ChunkSize + 1, 3*ChunkSize + 5}
	if os.Getenv("GIT_SNAP_LONG_TESTS") != "" {
		sizes = append(sizes, 1_000_050)
	}
	files := []snapshot.File{{Path: "a/b.txt", Mode: snapshot.ModeRegular, Content: []byte("b\n")}}
	for _, n := range sizes {
		msgs, ids := make([]any, n), make([]storage.ID, n)
		for i := range msgs {
			data := Encoded(fmt.Sprintf("%d\n", i))
			msgs[i], ids[i] = data, BlobHash(data)
		}
		events := []any{Encoded("{}\n"), Encoded("[]\n")}
		eventIDs := []storage.ID{BlobHash(events[0].(Encoded)), BlobHash(events[1].(Encoded))}
		rest := map[string]any{"config": "x"}
		var hw, hs snapshot.Header
		whole, err := Build(Reader{}, nil, &snapshot.Parts{Others: rest, Messages: msgs, Events: events, Files: files}, &hw)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := BuildStored(Reader{}, &snapshot.Parts{Others: rest, Files: files}, ids, eventIDs, &hs)
		if err != nil {
			t.Fatal(err)
		}
		written := make(map[storage.ID]bool, n+len(eventIDs))
		for _, h := range append(ids, eventIDs...) {
			written[h] = true
		}
		var want []storage.ID
		for _, o := range whole {
			if o.Type == plumbing.TreeObject || !written[o.Hash] {
				want = append(want, o.Hash)
			}
		}
		var got []storage.ID
		for _, o := range stored {
			got = append(got, o.Hash)
		}
		slices.SortFunc(want, func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) })
		slices.SortFunc(got, func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) })
		if !slices.Equal(got, want) || whole[len(whole)-1].Hash != stored[len(stored)-1].Hash || !reflect.DeepEqual(hw, hs) {
			t.Fatalf("%d messages: BuildStored made %d objects, root %s, header %+v; Build %d (but the blobs), root %s, header %+v",
				n, len(got), stored[len(stored)-1].Hash, hs, len(want), whole[len(whole)-1].Hash, hw)
		}
	}
}
