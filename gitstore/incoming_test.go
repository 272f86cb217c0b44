package gitstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// packOf makes a pack of the objects git lists for revs in dir, minus
// those in drop: the raw material of hostile bundles.
func packOf(t *testing.T, dir string, drop map[string]bool, revs ...string) []byte {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(git(t, dir, append([]string{"rev-list", "--objects"}, revs...)...), "\n") {
		id, _, _ := strings.Cut(line, " ")
		if id != "" && !drop[id] {
			ids = append(ids, id)
		}
	}
	cmd := exec.Command("git", "pack-objects", "--stdout")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pack-objects: %v", err)
	}
	return out
}

func bundle(header string, pack []byte) []byte {
	return append([]byte("# v2 git bundle\n"+header+"\n"), pack...)
}

// victim is a repository with refs an attacker would like to move.
func victim(t *testing.T) (string, *Store, string) {
	t.Helper()
	dir, s := newRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "update-ref", "refs/remotes/origin/main", head)
	git(t, dir, "tag", "v1.0")
	saveN(t, s, "mine", 1, 2)
	return dir, s, git(t, dir, "for-each-ref")
}

func TestHostileBundleRefNamesMoveNothing(t *testing.T) {
	ctx := context.Background()
	src, a := newRepo(t)
	saveN(t, a, "s1", 1, 3)
	tip := git(t, src, "rev-parse", "refs/snap/s1")
	pack := packOf(t, src, nil, "refs/snap/s1")
	outside := filepath.Join(t.TempDir(), "x")
	up := strings.Repeat("../", 40)
	for _, name := range []string{
		"refs/snap/../remotes/origin/main",
		"refs/snap/../tags/v1.0",
		"refs/snap/../heads/x",
		"refs/tags/snap/../../heads/main",
		"refs/snap/" + up + strings.TrimPrefix(outside, "/") + "/OUTSIDE",
		"refs/snap/a/b",
		"refs/snap/ok.",
		"refs/snap/x.lock",
		"refs/snap/",
		"refs/tags/snap/s1/x/../../../heads/y",
		"refs/tags/snap/s1",
		"refs/heads/main",
	} {
		t.Run(name, func(t *testing.T) {
			dir, s, before := victim(t)
			_, err := s.ImportBundle(ctx, bytes.NewReader(bundle(tip+" "+name+"\n", pack)))
			var u interface{ UserError() }
			if err == nil || !errors.As(err, &u) {
				t.Fatalf("import of %q: err = %v, want an error for the user", name, err)
			}
			if after := git(t, dir, "for-each-ref"); after != before {
				t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("a file appeared outside the repository: %s", outside)
			}
			git(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

func TestBundlesWithBrokenHistoryAreRefused(t *testing.T) {
	ctx := context.Background()
	src, a := newRepo(t)
	saveN(t, a, "s1", 1, 2)
	if _, err := a.Save(ctx, mustParse(t, `{"messages":[{"id":"x","content":"only in the bundle"}]}`), storage.SaveOptions{Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	tip := git(t, src, "rev-parse", "refs/snap/s1")
	blob := git(t, src, "rev-parse", "refs/snap/s1:messages/0000/000000.json")
	first := git(t, src, "rev-parse", "refs/snap/s1~2")
	code := git(t, src, "rev-parse", "HEAD")
	for name, b := range map[string][]byte{
		"a blob of the tip is missing":    bundle(tip+" refs/snap/s1\n", packOf(t, src, map[string]bool{blob: true}, "refs/snap/s1")),
		"an early snapshot is missing":    bundle(tip+" refs/snap/s1\n", packOf(t, src, map[string]bool{first: true}, "refs/snap/s1")),
		"the tip is a blob":               bundle(blob+" refs/snap/evil\n", packOf(t, src, nil, "refs/snap/s1")),
		"the tip is not a snapshot":       bundle(code+" refs/snap/evil\n", packOf(t, src, nil, "HEAD")),
		"a second tip is not a snapshot":  bundle(tip+" refs/snap/s1\n"+code+" refs/snap/evil\n", packOf(t, src, nil, "refs/snap/s1", "HEAD")),
		"a checkpoint names a plain tree": bundle(git(t, src, "rev-parse", "HEAD^{tree}")+" refs/tags/snap/s1/cp\n", packOf(t, src, nil, "HEAD")),
	} {
		t.Run(name, func(t *testing.T) {
			dir, s, before := victim(t)
			if _, err := s.ImportBundle(ctx, bytes.NewReader(b)); err == nil {
				t.Fatal("import succeeded")
			}
			if after := git(t, dir, "for-each-ref"); after != before {
				t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
			}
			git(t, dir, "fsck", "--strict", "--no-dangling", "--connectivity-only")
			git(t, dir, "gc", "-q") // a ref to a missing object would make this fail
		})
	}
}

// A remote whose session ref points at an ordinary commit is refused
// before any local ref moves.
func TestPullRefusesARemoteWhoseSessionIsNotSnapshots(t *testing.T) {
	ctx := context.Background()
	remote := t.TempDir()
	git(t, remote, "init", "-q", "--bare")
	src, a := newRepo(t)
	saveN(t, a, "good", 1, 2)
	git(t, src, "push", "-q", remote, "refs/snap/good:refs/snap/good", "HEAD:refs/snap/evil")
	dir, s, _ := victim(t)
	git(t, dir, "remote", "add", "origin", remote)
	before := git(t, dir, "for-each-ref", "refs/snap", "refs/tags", "refs/heads")
	_, err := s.Pull(ctx, RemoteOptions{Remote: "origin"})
	var in *IncomingError
	if !errors.As(err, &in) {
		t.Fatalf("pull: err = %v, want an IncomingError", err)
	}
	if after := git(t, dir, "for-each-ref", "refs/snap", "refs/tags", "refs/heads"); after != before {
		t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestDropRefusesNamesOutsideItsRefs(t *testing.T) {
	ctx := context.Background()
	dir, s, before := victim(t)
	for _, name := range []string{"../heads/main", "../tags/v1.0", "a/../../heads/main", "x."} {
		_, err := s.Drop(ctx, name, false)
		var u interface{ UserError() }
		if !errors.As(err, &u) {
			t.Errorf("drop %q: err = %v, want an error for the user", name, err)
		}
	}
	if after := git(t, dir, "for-each-ref"); after != before {
		t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestCheckRefPrefix(t *testing.T) {
	for p, ok := range map[string]bool{
		"refs/snap/":                true,
		"refs/heads/snap/":          true,
		"refs/agents/state/":        true,
		"refs/snap":                 false,
		"refs/":                     false,
		"snap/":                     false,
		"refs/heads/":               false,
		"refs/remotes/":             false,
		"refs/tags/":                false,
		"refs/tags/snap/":           false,
		"refs/tags/snap/x/":         false,
		"refs/snap/../heads/":       false,
		"refs/../../../../tmp/x/":   false,
		"refs/snap//":               false,
		"refs/.hidden/":             false,
		"refs/snap.lock/":           false,
		"refs/sn ap/":               false,
		"refs/snap/x./":             false,
		"refs/" + "\x00" + "x/":     false,
		"refs/snap/" + "a\\b" + "/": false,
	} {
		err := CheckRefPrefix(p)
		if (err == nil) != ok {
			t.Errorf("CheckRefPrefix(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}

// A bundle whose snapshot holds an object over the reader's limit is
// refused whole: importing it would make a session no command can read.
func TestBundleWithAnOversizedObjectIsRefused(t *testing.T) {
	ctx := context.Background()
	src, a := newRepo(t)
	big := strings.Repeat("x", 8<<10)
	if _, err := a.Save(ctx, mustParse(t, `{"messages":[{"id":"a","content":"`+big+`"}]}`), storage.SaveOptions{Session: "big"}); err != nil {
		t.Fatal(err)
	}
	tip := git(t, src, "rev-parse", "refs/snap/big")
	b := bundle(tip+" refs/snap/big\n", packOf(t, src, nil, "refs/snap/big"))

	dir, _, before := victim(t)
	s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, MaxObjectBytes: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.ImportBundle(ctx, bytes.NewReader(b))
	var tooLarge *ObjectTooLargeError
	var u interface{ UserError() }
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "more than the 4096 read at most") {
		t.Fatalf("import: err = %v (too large: %v), want a user error naming the limit", err, errors.As(err, &tooLarge))
	}
	if after := git(t, dir, "for-each-ref"); after != before {
		t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
	}
}
