package gitstore

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestNamesAgreeWithGit lists sessions and checkpoints, loose and packed,
// and checks them against git for-each-ref.
func TestNamesAgreeWithGit(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "alpha", 1, 2)
	saveN(t, s, "beta.2", 1, 1)
	tip, err := s.SessionTip("alpha")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"green", "red"} {
		if _, err := s.SetCheckpoint(ctx, name, tip, "", false); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "pack-refs", "--all")
	saveN(t, s, "gamma", 1, 1) // loose beside packed
	git(t, dir, "update-ref", "refs/snapshots-not/x", tip.String())

	sessions, err := s.SessionNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(git(t, dir, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/snap/"))
	slices.Sort(want)
	if !slices.Equal(sessions, want) {
		t.Errorf("sessions %q, git lists %q", sessions, want)
	}
	cps, err := s.CheckpointNames(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Fields(git(t, dir, "for-each-ref", "--format=snap/%(refname:lstrip=2)", "refs/snap-tags/"))
	if !slices.Equal(cps, want) || len(cps) != 2 {
		t.Errorf("checkpoints %q, git lists %q", cps, want)
	}
	if one, _ := s.CheckpointNames(ctx, "beta.2"); len(one) != 0 {
		t.Errorf("beta.2 has no checkpoints, listed %q", one)
	}
	if one, _ := s.CheckpointNames(ctx, "alpha"); !slices.Equal(one, cps) {
		t.Errorf("alpha's checkpoints %q, want %q", one, cps)
	}
}
