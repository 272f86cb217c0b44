package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// TestSessionsReadsEveryTip: a list of many sessions, some packed and
// some loose (so read on several goroutines), gives each session its own
// tip as Entry reads it, newest first; a ref under the prefix that holds
// no snapshot is passed over, and one naming a missing object is an
// error.
func TestSessionsReadsEveryTip(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	const n = 150
	for i := range n {
		if i == n/2 {
			git(t, dir, "gc", "-q")
		}
		// Times go back and forth, so that the order is the list's doing.
		when := at.Add(time.Duration((i*37)%n) * time.Minute)
		if _, err := s.Save(ctx, conversation(1+i%5), storage.SaveOptions{Session: fmt.Sprintf("s%03d", i), Time: when}); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "update-ref", "refs/snap/zz-not-a-snapshot", "HEAD")
	got, err := s.Sessions(ctx)
	must(t, err)
	if len(got) != n {
		t.Fatalf("%d sessions, want %d", len(got), n)
	}
	for i, sess := range got {
		tip := storage.NewID(git(t, dir, "rev-parse", sess.Ref))
		want, err := s.Entry(ctx, tip)
		must(t, err)
		if sess.Ref != "refs/snap/"+sess.Name || !reflect.DeepEqual(sess.Tip, want) {
			t.Fatalf("session %s: tip %+v, want %+v", sess.Name, sess.Tip, want)
		}
		if i > 0 && got[i-1].Tip.Header.Time.Before(sess.Tip.Header.Time) {
			t.Fatalf("%s before %s, which is newer", got[i-1].Name, sess.Name)
		}
	}
	must(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "snap", "s-missing"), []byte(strings.Repeat("1", 40)+"\n"), 0o644))
	if _, err := s.Sessions(ctx); err == nil || !strings.Contains(err.Error(), strings.Repeat("1", 40)) {
		t.Errorf("a tip naming a missing object: %v", err)
	}
}
