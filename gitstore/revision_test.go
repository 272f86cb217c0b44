package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

func TestCheckRevision(t *testing.T) {
	for _, tc := range []struct{ rev, says string }{
		{"fix-login", ""},
		{"fix-login~2", ""},
		{"fix-login^^", ""},
		{"snap/s/cp", ""},
		{"0123abcd", ""},
		{"", "is empty"},
		{"-x", "starts with '-'"},
		{"a..b", "only log and diff take"},
		{"a...b", "A...B"},
		{"a@{1}", "reflog"},
		{"^a", "only for log"},
		{"a b", "space at byte 1"},
		{"a:messages", "':' at byte 1"},
		{"a*", "'*' at byte 1"},
		{"a\x01", "control character (U+0001) at byte 1"},
	} {
		err := CheckRevision(tc.rev)
		if tc.says == "" {
			if err != nil {
				t.Errorf("CheckRevision(%q) = %v, want nil", tc.rev, err)
			}
			continue
		}
		var re *storage.RevisionError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("CheckRevision(%q) = %v, want a RevisionError saying %q", tc.rev, err, tc.says)
		}
	}
}

func TestSplitRange(t *testing.T) {
	for _, tc := range []struct {
		arg, dflt        string
		include, exclude string
		says             string
	}{
		{arg: "a", include: "a"},
		{arg: "a~2", include: "a~2"},
		{arg: "^a", exclude: "a"},
		{arg: "a..b", include: "b", exclude: "a"},
		{arg: "a~3..a", include: "a", exclude: "a~3"},
		{arg: "a..", dflt: "s", include: "s", exclude: "a"},
		{arg: "..b", dflt: "s", include: "b", exclude: "s"},
		{arg: "a..", says: "no default session"},
		{arg: "..", dflt: "s", says: "neither end"},
		{arg: "a..b..c", says: "more than one '..'"},
		{arg: "a...b", says: "A...B"},
		{arg: "a..b:x", says: "in the range"},
		{arg: "^", says: "is empty"},
		{arg: "^a:b", says: "':' at byte 1"},
		{arg: "", says: "is empty"},
	} {
		inc, exc, err := SplitRange(tc.arg, tc.dflt)
		if tc.says != "" {
			var re *storage.RevisionError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("SplitRange(%q) = %v, want a RevisionError saying %q", tc.arg, err, tc.says)
			}
			continue
		}
		if err != nil || inc != tc.include || exc != tc.exclude {
			t.Errorf("SplitRange(%q, %q) = %q, %q, %v; want %q, %q", tc.arg, tc.dflt, inc, exc, err, tc.include, tc.exclude)
		}
	}
}

// TestWalkRangeAgreesWithGit walks ranges over two sessions that share
// history and checks each against git rev-list on the same refs.
func TestWalkRangeAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x\n"), 0o644))
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, Now: func() time.Time { clock = clock.Add(time.Minute); return clock }})
	must(t, err)
	defer s.Close()
	for i := 1; i <= 5; i++ {
		_, err := s.Save(ctx, conversation(i), storage.SaveOptions{Session: "a"})
		must(t, err)
	}
	git(t, dir, "update-ref", "refs/snap/b", git(t, dir, "rev-parse", "refs/snap/a~2"))
	for i := 6; i <= 8; i++ {
		_, err := s.Save(ctx, conversation(i), storage.SaveOptions{Session: "b"})
		must(t, err)
	}
	for _, args := range [][]string{
		{"a"}, {"a~2..a"}, {"a..b"}, {"b..a"}, {"^a~1", "b"}, {"a..a"}, {"^b", "a", "b"}, {"a~4..b", "^a~1"},
	} {
		r, err := s.ResolveRange(ctx, args)
		must(t, err)
		var got []string
		var last time.Time
		must(t, s.WalkRange(ctx, r, func(e storage.Entry) error {
			if !last.IsZero() && e.Header.Time.After(last) {
				t.Errorf("%v: %s is newer than the one before it", args, e.ID)
			}
			last = e.Header.Time
			got = append(got, e.ID.String())
			return nil
		}))
		var gitArgs []string
		for _, a := range args {
			gitArgs = append(gitArgs, strings.NewReplacer("a", "refs/snap/a", "b", "refs/snap/b").Replace(a))
		}
		want := strings.Fields(git(t, dir, append([]string{"rev-list"}, gitArgs...)...))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%v: walked %v, git rev-list %v", args, got, want)
		}
	}
	if _, err := s.ResolveRange(ctx, []string{"a..nosuch"}); err == nil {
		t.Error("a..nosuch resolved")
	}
	var none []storage.ID
	must(t, s.WalkRange(ctx, RevRange{Exclude: []storage.ID{s.mustResolve(t, "a")}}, func(e storage.Entry) error {
		none = append(none, e.ID)
		return nil
	}))
	if len(none) != 0 {
		t.Errorf("a walk with only exclusions showed %d snapshots", len(none))
	}
}

// FuzzSplitRange: any argument splits into revisions CheckRevision
// accepts, or gives a RevisionError; nothing panics.
func FuzzSplitRange(f *testing.F) {
	for _, seed := range []string{"a..b", "^a", "a..", "..b", "..", "a...b", "^a..b", "a..b..c", "^", "^^a", "a~1..a^2", "a\x00..b", ".. ..", "^-x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		inc, exc, err := SplitRange(arg, "dflt")
		var re *storage.RevisionError
		switch {
		case err != nil && !errors.As(err, &re):
			t.Fatalf("%q: %v is not a RevisionError", arg, err)
		case err == nil:
			for _, rev := range []string{inc, exc} {
				if rev != "" && CheckRevision(rev) != nil {
					t.Fatalf("%q split into %q, which CheckRevision refuses", arg, rev)
				}
			}
			if inc == "" && exc == "" {
				t.Fatalf("%q split into nothing", arg)
			}
		}
	})
}
