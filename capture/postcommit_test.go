package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

func TestPostCommitMarks(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	pc := PostCommit{Commit: "c0ffee", WorkTree: "/src/demo", Now: now}
	for _, c := range []struct {
		name string
		ago  time.Duration // since the session's last snapshot
		code string        // the commit it names
		cwd  string
		want bool
	}{
		{"active in the work tree", time.Hour, "", "/src/demo", true},
		{"in a folder of it", time.Hour, "", "/src/demo/web", true},
		{"exactly a day ago", 24 * time.Hour, "", "/src/demo", true},
		{"idle for more than a day", 24*time.Hour + time.Second, "", "/src/demo", false},
		{"an older commit", time.Hour, "beef", "/src/demo", true},
		{"already marked", time.Hour, "c0ffee", "/src/demo", false},
		{"another work tree", time.Hour, "", "/src/demo-2", false},
		{"above the work tree", time.Hour, "", "/src", false},
		{"no directory recorded", time.Hour, "", "", false},
	} {
		tip := snapshot.Header{Time: now.Add(-c.ago), Code: c.code}
		if got := pc.Marks(tip, c.cwd); got != c.want {
			t.Errorf("%s: Marks = %v, want %v", c.name, got, c.want)
		}
	}
	if (PostCommit{Commit: "c0ffee", Now: now}).Marks(snapshot.Header{Time: now}, "/src/demo") {
		t.Error("a commit with no work tree was marked on a session")
	}
}

func TestPostCommitMarkSavesOnTheSessionsItMarks(t *testing.T) {
	ctx := context.Background()
	dir, s := newStore(t)
	for session, cwd := range map[string]string{"here": dir, "below": dir + "/sub", "elsewhere": "/tmp/other"} {
		if _, err := s.Save(ctx, map[string]any{"cwd": cwd}, storage.SaveOptions{Session: session}); err != nil {
			t.Fatal(err)
		}
	}
	pc := PostCommit{Commit: "0123456789abcdef0123456789abcdef01234567", WorkTree: dir, Now: time.Now()}
	marked, err := pc.Mark(ctx, s)
	slices.Sort(marked)
	if err != nil || !slices.Equal(marked, []string{"below", "here"}) {
		t.Fatalf("marked %v, %v; want below and here", marked, err)
	}
	tip, err := s.SessionTip("here")
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Entry(ctx, tip)
	if err != nil || e.Header.Code != pc.Commit || e.Header.Label != "post-commit 0123456789ab" {
		t.Errorf("here's tip: %+v, %v", e.Header, err)
	}
	if marked, err := pc.Mark(ctx, s); err != nil || len(marked) != 0 {
		t.Errorf("marking again marked %v, %v", marked, err)
	}
}

// A session whose newest commit is missing from the object store made
// every post-commit hook fail, marking none: the others are marked, and
// the error names the damaged one (for hook.log).
func TestPostCommitMarksTheSessionsItCanRead(t *testing.T) {
	ctx := context.Background()
	dir, s := newStore(t)
	for _, session := range []string{"here", "damaged"} {
		if _, err := s.Save(ctx, map[string]any{"cwd": dir}, storage.SaveOptions{Session: session}); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := s.SessionTip("damaged")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", tip.String()[:2], tip.String()[2:])); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pc := PostCommit{Commit: "0123456789abcdef0123456789abcdef01234567", WorkTree: dir, Now: time.Now()}
	marked, err := pc.Mark(ctx, s)
	var damaged *storage.DamagedSessions
	if !slices.Equal(marked, []string{"here"}) || !errors.As(err, &damaged) || len(damaged.Sessions) != 1 || damaged.Sessions[0].Name != "damaged" {
		t.Fatalf("marked %v, %v; want here marked and damaged named", marked, err)
	}
}
