package gitobj

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// tagShapes are tag objects as git writes them and as others may:
// signed, without a tagger, headers out of place or missing, no
// message, no final newline, bad ids and types.
var tagShapes = []string{
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag snap/s/green\ntagger A <a@x> 1700000000 +0100\n\ntests pass\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1700000000 -0230\n\nsigned\n-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\nssh\n-----BEGIN SSH SIGNATURE-----\nabc\n-----END SSH SIGNATURE-----\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\n-----BEGIN PGP SIGNATURE-----\nfirst\n-----BEGIN CERTIFICATE-----\nlast\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\n\nno tagger\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype tree\ntag v1\nx-extra v\ntagger A <a@x> 1 +0000\n\ntagger out of place\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\ntagger B <b@x> 2 +0000\n\ntwo taggers\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\nno final newline",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype nope\ntag v1\n\nbad type\n",
	"object zz\ntype commit\ntag v1\n\nbad id\n",
	"type commit\nobject 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntag v1\n\nout of order\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntag v1\ntype commit\n\nout of order\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\ntype commit\ntag v1\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> notatime +zz\n\nbad time\n",
	"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\r\ntype commit\ntag v1\n\ncarriage return\n",
	"",
	"\n",
}

// TestParseTagAsGoGit: ParseTag reads every shape as go-git's
// Tag.Decode does (target, type, name, tagger, message without its
// signature), and refuses what it refuses.
func TestParseTagAsGoGit(t *testing.T) {
	for _, raw := range tagShapes {
		checkTagAsGoGit(t, []byte(raw))
	}
}

// FuzzParseTag: the same for any bytes.
func FuzzParseTag(f *testing.F) {
	for _, raw := range tagShapes {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkTagAsGoGit(t, raw) })
}

func checkTagAsGoGit(t *testing.T, raw []byte) {
	t.Helper()
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TagObject)
	if _, err := o.Write(raw); err != nil {
		t.Fatal(err)
	}
	want, wantErr := object.DecodeTag(nil, o)
	got, err := ParseTag(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, go-git's %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if plumbing.Hash(got.Target) != want.Target || got.TargetType != want.TargetType || got.Name != want.Name || got.Message != want.Message {
		t.Errorf("%q:\n got %s %s %q message %q\nwant %s %s %q message %q", raw, got.Target, got.TargetType, got.Name, got.Message, want.Target, want.TargetType, want.Name, want.Message)
	}
	if got.Tagger == nil && (want.Tagger != object.Signature{}) || got.Tagger != nil && !sameSignature(got.Tagger, want.Tagger) {
		t.Errorf("%q: tagger %q, go-git's %v", raw, got.Tagger, want.Tagger)
	}
	_, gotOff := got.When.Zone()
	_, wantOff := want.Tagger.When.Zone()
	if !got.When.Equal(want.Tagger.When) || gotOff != wantOff {
		t.Errorf("%q: tagger time %v, go-git's %v", raw, got.When, want.Tagger.When)
	}
}
