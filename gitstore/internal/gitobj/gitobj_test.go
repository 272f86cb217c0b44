package gitobj

import (
	"bytes"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/storage"
)

// commitShapes are commit objects as git writes them and as others may:
// signed, merged, with extra headers, headers out of place, no message,
// no final newline, bad ids, odd times and zones.
var commitShapes = []string{
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1700000000 +0100\ncommitter C <c@x> 1700000001 -0230\n\nsubject\n\nSnap-Session: s\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 1111111111111111111111111111111111111111\nparent 2222222222222222222222222222222222222222\nauthor A <a@x> 1700000000 +0000\ncommitter C <c@x> 1700000001 +0000\n\nmerge\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\nencoding latin1\n\nsigned\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 +0000\nmergetag object 1111111111111111111111111111111111111111\n type commit\n\n tag body\n\nafter mergetag\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> 5 +0500\n\nno author\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\nx-extra v\ncommitter C <c@x> 9 +0000\n\ncommitter out of place\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000\nparent 1111111111111111111111111111111111111111\n\nparent after the committer is dropped\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000\n\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000\n\nno final newline",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nmessage right after the tree\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 1111111111111111111111111111111111111111",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 1111111111111111111111111111111111111111\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent zz\n\nbad parent\n",
	"tree nothex\n\nbad tree\n",
	"parent 1111111111111111111111111111111111111111\ntree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\ntree not first\n",
	"\ntree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
	"",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x>\n\nno time\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> 12\n\nno zone\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> 12 +01\n\nshort zone\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> 12 -0030\n\nminus zero hours\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> 12 +zzzz\n\nbad zone\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> notatime +0000\n\nbad time\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C >c@x< 12 +0000\n\nbrackets the wrong way\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter C <c@x> -99999999999 +1400\n\nfar past\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 9 +0000\n\r\n\ncarriage return line\n",
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\r\n\ncarriage return after the id\n",
}

// TestParseCommitAsGoGit: ParseCommit reads every shape as go-git's
// Commit.Decode does (tree, parents, committer time and zone, message),
// and refuses what it refuses.
func TestParseCommitAsGoGit(t *testing.T) {
	for _, raw := range commitShapes {
		checkAsGoGit(t, []byte(raw))
	}
}

// FuzzParseCommit: the same for any bytes.
func FuzzParseCommit(f *testing.F) {
	for _, raw := range commitShapes {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkAsGoGit(t, raw) })
}

func checkAsGoGit(t *testing.T, raw []byte) {
	t.Helper()
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.CommitObject)
	if _, err := o.Write(raw); err != nil {
		t.Fatal(err)
	}
	want, wantErr := object.DecodeCommit(nil, o)
	got, err := ParseCommit(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, go-git's %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if got.Committer != nil && !sameSignature(got.Committer, want.Committer) || got.Author != nil && !sameSignature(got.Author, want.Author) {
		t.Errorf("%q: author %q committer %q, go-git's %v and %v", raw, got.Author, got.Committer, want.Author, want.Committer)
	}
	if plumbing.Hash(got.Tree) != want.TreeHash || !slices.Equal(hashes(got.Parents), want.ParentHashes) || got.Message != want.Message {
		t.Errorf("%q:\n got tree %s parents %v message %q\nwant tree %s parents %v message %q", raw, got.Tree, got.Parents, got.Message, want.TreeHash, want.ParentHashes, want.Message)
	}
	_, gotOff := got.When.Zone()
	_, wantOff := want.Committer.When.Zone()
	if !got.When.Equal(want.Committer.When) || gotOff != wantOff || got.When.Location().String() != want.Committer.When.Location().String() {
		t.Errorf("%q: committer time %v, go-git's %v", raw, got.When, want.Committer.When)
	}
}

// treeShapes are tree objects as git writes them and as others may:
// every mode, odd modes git reads as canonical ones, names with spaces,
// and each way an entry can be cut short or damaged.
var treeShapes = func() []string {
	id := string(bytes.Repeat([]byte{0xab}, 20))
	var out []string
	for _, e := range []string{"100644 a.txt\x00", "100755 run\x00", "40000 dir\x00", "120000 link\x00", "160000 sub\x00",
		"100664 group\x00", "100700 x\x00", "644 short\x00", "0 zero\x00", "40755 d\x00", "177777 all\x00", "100644 with space\x00"} {
		out = append(out, e+id, "100644 first\x00"+id+e+id)
	}
	return append(out, "", "100644", "100644 ", "100644 name", "100644 name\x00", "100644 name\x00short", "100644 \x00"+id,
		"10064x name\x00"+id, "-100 name\x00"+id, "99999999999 name\x00"+id, "100644 a\x00"+id+"garbage", " name\x00"+id)
}()

// TestParseTreeAsGoGit: ParseTree reads every shape as go-git's
// Tree.Decode does (names, modes, ids, order), and refuses what it
// refuses.
func TestParseTreeAsGoGit(t *testing.T) {
	for _, raw := range treeShapes {
		checkTreeAsGoGit(t, []byte(raw))
	}
}

// FuzzParseTree: the same for any bytes.
func FuzzParseTree(f *testing.F) {
	for _, raw := range treeShapes {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkTreeAsGoGit(t, raw) })
}

func checkTreeAsGoGit(t *testing.T, raw []byte) {
	t.Helper()
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	if _, err := o.Write(raw); err != nil {
		t.Fatal(err)
	}
	want, wantErr := object.DecodeTree(nil, o)
	got, err := ParseTree(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, go-git's %v", raw, err, wantErr)
	}
	if err == nil && !slices.Equal(got, fromGoGit(want.Entries)) {
		t.Errorf("%q:\n got %v\nwant %v", raw, got, want.Entries)
	}
}

func fromGoGit(entries []object.TreeEntry) []TreeEntry {
	out := make([]TreeEntry, len(entries))
	for i, e := range entries {
		out[i] = TreeEntry{Name: e.Name, Mode: e.Mode, Hash: storage.ID(e.Hash)}
	}
	return out
}

// sameSignature: a header value kept as written decodes as go-git's.
func sameSignature(value []byte, want object.Signature) bool {
	var got object.Signature
	got.Decode(value)
	return got.Name == want.Name && got.Email == want.Email && got.When.Equal(want.When)
}
