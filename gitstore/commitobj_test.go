package gitstore

import (
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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

// TestParseCommitAsGoGit: parseCommit reads every shape as go-git's
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
	got, err := parseCommit(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, go-git's %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if got.Tree != want.TreeHash || !slices.Equal(got.Parents, want.ParentHashes) || got.Message != want.Message {
		t.Errorf("%q:\n got tree %s parents %v message %q\nwant tree %s parents %v message %q", raw, got.Tree, got.Parents, got.Message, want.TreeHash, want.ParentHashes, want.Message)
	}
	_, gotOff := got.When.Zone()
	_, wantOff := want.Committer.When.Zone()
	if !got.When.Equal(want.Committer.When) || gotOff != wantOff || got.When.Location().String() != want.Committer.When.Location().String() {
		t.Errorf("%q: committer time %v, go-git's %v", raw, got.When, want.Committer.When)
	}
}
