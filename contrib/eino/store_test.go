package eino_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/contrib/eino"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// git runs the real git in dir and returns its trimmed output.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with the real git and returns its path.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir
}

// openRepo opens the repository at dir through git-snap's front door.
func openRepo(t testing.TB, dir string) *gitsnap.Repository {
	t.Helper()
	r, err := gitsnap.Open(context.Background(), dir, gitsnap.Options{
		GitEnv: gitstore.GitEnv{CommitterName: "test", CommitterEmail: "test@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// history returns a session's documents, oldest first, with their entries.
func history(t testing.TB, s *gitsnap.Repository, session string) ([]map[string]any, []storage.Entry) {
	t.Helper()
	ctx := context.Background()
	tip, err := s.SessionTip(session)
	if err != nil {
		t.Fatal(err)
	}
	var entries []storage.Entry
	if !tip.IsZero() {
		err = s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
			entries = append([]storage.Entry{e}, entries...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	docs := make([]map[string]any, len(entries))
	for i, e := range entries {
		if docs[i], _, err = s.Read(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	return docs, entries
}

func TestSetGetKeepsEveryKindOfBytes(t *testing.T) {
	ctx := context.Background()
	cps := eino.New(openRepo(t, newRepo(t)), eino.Options{})
	cases := []struct {
		name, format string
		data         []byte
		exact        bool // Get returns the very bytes; else JSON-equal ones
	}{
		{"canonical json", "json", []byte(`{"a":[1,2.5,"x"],"b":null}`), true},
		{"json as eino writes it", "json", []byte(`{"Type":{"PointerNum":1},"MapValues":{"Inputs":{"MapValues":{"\"b\"":{"JSONValue":"2"}}},"\"a\"":{}}}`), false},
		{"big numbers", "json", []byte(`{"n":123456789012345678901234567890,"f":1.50,"e":1E2,"z":-0}`), false},
		{"json scalar", "json", []byte(`"just a string"`), true},
		{"binary", "bytes", []byte{0, 1, 2, 0xff, 0xfe, '{', 0}, true},
		{"text that is not json", "bytes", []byte("state: ready\nnext: publish\n"), true},
		{"empty", "bytes", []byte{}, true},
		{"duplicate keys", "bytes", []byte(`{"a":1,"a":2}`), true},
		{"invalid utf-8 in a json string", "bytes", []byte("{\"a\":\"\xff\"}"), true},
		{"lone surrogate", "bytes", []byte(`{"a":"\ud800"}`), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := "kind-" + strings.ReplaceAll(c.name, " ", "-")
			if err := cps.Set(ctx, id, c.data); err != nil {
				t.Fatal(err)
			}
			got, ok, err := cps.Get(ctx, id)
			if err != nil || !ok {
				t.Fatalf("Get: %v %v", ok, err)
			}
			if c.exact && !bytes.Equal(got, c.data) {
				t.Fatalf("Get = %q, want the bytes set, %q", got, c.data)
			}
			if !c.exact {
				want, _ := snapshot.Parse(c.data, snapshot.Limits{})
				have, err := snapshot.Parse(got, snapshot.Limits{})
				if err != nil || !snapshot.Equal(want, have) {
					t.Fatalf("Get = %s, not JSON-equal to %s (%v)", got, c.data, err)
				}
			}
			if c.format == "json" && got == nil {
				t.Fatal("nil bytes")
			}
		})
	}
	// The format each was kept in, as git holds it.
	store := openRepo(t, newRepo(t))
	cps = eino.New(store, eino.Options{})
	for _, c := range cases {
		id := "f-" + strings.ReplaceAll(c.name, " ", "-")
		if err := cps.Set(ctx, id, c.data); err != nil {
			t.Fatal(err)
		}
		docs, _ := history(t, store, eino.DefaultSession(id))
		meta := docs[0]["eino"].(map[string]any)
		if meta["format"] != c.format {
			t.Errorf("%s: kept as %v, want %s", c.name, meta["format"], c.format)
		}
		_, isJSON := docs[0]["checkpoint"]
		if isJSON != (c.format == "json") {
			t.Errorf("%s: checkpoint member present = %v", c.name, isJSON)
		}
	}
}

func TestGetMissing(t *testing.T) {
	cps := eino.New(openRepo(t, newRepo(t)), eino.Options{})
	data, ok, err := cps.Get(context.Background(), "never-set")
	if data != nil || ok || err != nil {
		t.Fatalf("Get of a missing checkpoint = %q, %v, %v; want nil, false, nil", data, ok, err)
	}
}

func TestEverySetIsASnapshotAndGetReadsTheNewest(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	store := openRepo(t, dir)
	cps := eino.New(store, eino.Options{})
	for i := range 3 {
		if err := cps.Set(ctx, "run-1", fmt.Appendf(nil, `{"step":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	got, _, _ := cps.Get(ctx, "run-1")
	if string(got) != `{"step":2}` {
		t.Fatalf("Get = %s, want the newest", got)
	}
	docs, entries := history(t, store, "eino-run-1")
	if len(entries) != 3 {
		t.Fatalf("%d snapshots, want 3", len(entries))
	}
	for i, e := range entries {
		if e.Header.Label != eino.LabelSet || e.Header.Source != eino.Source || e.Header.Seq != i+1 {
			t.Errorf("snapshot %d header: %+v", i, e.Header)
		}
		if !snapshot.Equal(docs[i]["checkpoint"], map[string]any{"step": i}) {
			t.Errorf("snapshot %d holds %v", i, docs[i]["checkpoint"])
		}
	}
	// git sees them: one commit per Set on refs/snap/eino-run-1.
	if n := git(t, dir, "rev-list", "--count", "refs/snap/eino-run-1"); n != "3" {
		t.Fatalf("git rev-list --count = %s", n)
	}
}

func TestDeleteMarksAndKeepsHistory(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	store := openRepo(t, dir)
	cps := eino.New(store, eino.Options{})
	if err := cps.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if tip, _ := store.SessionTip("eino-gone"); !tip.IsZero() {
		t.Fatal("deleting a missing checkpoint wrote a snapshot")
	}
	must(t, cps.Set(ctx, "gone", []byte(`{"v":1}`)))
	must(t, cps.Delete(ctx, "gone"))
	if data, ok, err := cps.Get(ctx, "gone"); ok || data != nil || err != nil {
		t.Fatalf("Get after Delete = %q, %v, %v", data, ok, err)
	}
	must(t, cps.Delete(ctx, "gone")) // already deleted: nothing more
	docs, entries := history(t, store, "eino-gone")
	if len(entries) != 2 || entries[1].Header.Label != eino.LabelDelete {
		t.Fatalf("history after delete: %d snapshots, last %+v", len(entries), entries[len(entries)-1].Header)
	}
	if !snapshot.Equal(docs[0]["checkpoint"], map[string]any{"v": 1}) {
		t.Fatalf("the deleted checkpoint is no longer in history: %v", docs[0])
	}
	// The ref is still there for git, and a later Set brings it back.
	git(t, dir, "rev-parse", "--verify", "refs/snap/eino-gone")
	must(t, cps.Set(ctx, "gone", []byte(`{"v":2}`)))
	if got, ok, _ := cps.Get(ctx, "gone"); !ok || string(got) != `{"v":2}` {
		t.Fatalf("Get after a new Set = %s %v", got, ok)
	}
}

func TestDefaultSessionNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	ids := []string{
		"run-1", "user/42/thread 7", "user_42_thread_7", "a..b", "trailing.", "x.lock",
		"-dash-first", "ünïcødé", "", long, long + "y", "a/b", "a_b", "a\nb",
		// an id spelled as another one encodes: user/42 → user_42-ff9367307eb0
		"user/42", "user_42-" + encodedSuffix("user/42"),
	}
	seen := map[string]string{}
	for _, id := range ids {
		name := eino.DefaultSession(id)
		if err := snapshot.CheckName("session", name); err != nil {
			t.Errorf("DefaultSession(%q) = %q: %v", id, name, err)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("ids %q and %q share session %q", id, other, name)
		}
		seen[name] = id
	}
	if got := eino.DefaultSession("run-1"); got != "eino-run-1" {
		t.Errorf("a valid id is kept readable: %q", got)
	}
	// End to end: ids that differ only in characters a ref cannot hold.
	ctx := context.Background()
	cps := eino.New(openRepo(t, newRepo(t)), eino.Options{})
	must(t, cps.Set(ctx, "a/b", []byte(`1`)))
	must(t, cps.Set(ctx, "a_b", []byte(`2`)))
	a, _, _ := cps.Get(ctx, "a/b")
	b, _, _ := cps.Get(ctx, "a_b")
	if string(a) != "1" || string(b) != "2" {
		t.Fatalf("Get(a/b) = %s, Get(a_b) = %s", a, b)
	}
}

func TestSessionMappingThatCollides(t *testing.T) {
	ctx := context.Background()
	cps := eino.New(openRepo(t, newRepo(t)), eino.Options{
		Session: func(string) string { return "all-in-one" },
	})
	must(t, cps.Set(ctx, "a", []byte(`1`)))
	if _, _, err := cps.Get(ctx, "b"); err == nil || !strings.Contains(err.Error(), `holds eino checkpoint "a", not "b"`) {
		t.Fatalf("Get of another id in the same session: %v", err)
	}
	bad := eino.New(openRepo(t, newRepo(t)), eino.Options{
		Session: func(id string) string { return "bad/" + id },
	})
	if err := bad.Set(ctx, "a", []byte(`1`)); err == nil {
		t.Fatal("Set accepted an invalid session name")
	}
}

func TestGetRefusesASessionThatIsNotACheckpoint(t *testing.T) {
	ctx := context.Background()
	store := openRepo(t, newRepo(t))
	if _, err := store.Save(ctx, map[string]any{"messages": []any{}}, storage.SaveOptions{Session: "eino-x"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := eino.New(store, eino.Options{}).Get(ctx, "x")
	if !errors.Is(err, eino.ErrNotCheckpoint) {
		t.Fatalf("Get = %v, want ErrNotCheckpoint", err)
	}
}

// Two graph runs, in two stores on one repository as two processes
// would have, set the same checkpoint at once: every write lands.
func TestConcurrentSetsLoseNothing(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	stores := []*eino.CheckPointStore{
		eino.New(openRepo(t, dir), eino.Options{}),
		eino.New(openRepo(t, dir), eino.Options{}),
	}
	const writers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				errs <- stores[w%2].Set(ctx, "shared", fmt.Appendf(nil, `{"writer":%d,"i":%d}`, w, i))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	docs, entries := history(t, openRepo(t, dir), "eino-shared")
	if len(entries) != writers*each {
		t.Fatalf("%d snapshots, want %d", len(entries), writers*each)
	}
	got := map[string]bool{}
	for i, d := range docs {
		b, _ := snapshot.Marshal(d["checkpoint"])
		got[string(b)] = true
		if entries[i].Header.Seq != i+1 {
			t.Fatalf("snapshot %d has Snap-Seq %d", i, entries[i].Header.Seq)
		}
	}
	for w := range writers {
		for i := range each {
			if want := fmt.Sprintf(`{"i":%d,"writer":%d}`, i, w); !got[want] {
				t.Errorf("write %s was lost", want)
			}
		}
	}
	// Each writer's own writes are in the order it made them.
	last := map[any]float64{}
	for _, d := range docs {
		c := d["checkpoint"].(map[string]any)
		w, i := c["writer"].(snapshot.Number), c["i"].(snapshot.Number)
		n, _ := i.Float64()
		if prev, ok := last[w]; ok && n <= prev {
			t.Fatalf("writer %v: write %v after %v", w, n, prev)
		}
		last[w] = n
	}
	git(t, dir, "fsck", "--strict")
}

func TestRedactionIsRefusedUnlessAllowed(t *testing.T) {
	ctx := context.Background()
	secret := []byte(`{"State":{"key":"AKIAABCDEFGHIJKLMNOP"}}`)

	store := openRepo(t, newRepo(t)) // it redacts by the built-in rules
	err := eino.New(store, eino.Options{}).Set(ctx, "s", secret)
	if err == nil || !strings.Contains(err.Error(), "Options.Redact") {
		t.Fatalf("Set of a checkpoint holding a secret: %v", err)
	}
	if tip, _ := store.SessionTip("eino-s"); !tip.IsZero() {
		t.Fatal("a refused Set wrote a snapshot")
	}

	cps := eino.New(store, eino.Options{Redact: true})
	must(t, cps.Set(ctx, "s", secret))
	got, _, _ := cps.Get(ctx, "s")
	if bytes.Contains(got, []byte("AKIA")) || !bytes.Contains(got, []byte("[REDACTED:")) {
		t.Fatalf("stored with Redact: %s", got)
	}
	// Bytes that are not JSON are scanned too.
	err = eino.New(store, eino.Options{}).Set(ctx, "t", []byte("key AKIAABCDEFGHIJKLMNOP\x01"))
	if err == nil {
		t.Fatal("a secret in non-JSON bytes went through")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// encodedSuffix is the hash DefaultSession appends to an encoded id.
func encodedSuffix(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:6])
}
