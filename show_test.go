package gitsnap_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// TestShowReadsWhatTheDocumentHolds: Show gives a real session's
// snapshot with the checkpoints on it, its live records and the numbers
// its agent counts of the document read whole, and reads every record
// as that agent does.
func TestShowReadsWhatTheDocumentHolds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	repo, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for source, file := range map[string]string{"claude-code": "claude-code/subagent.jsonl", "codex": "codex/rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl", "cli": "claude-code/short.jsonl"} {
		doc := transcript(t, file)
		first, err := repo.Save(ctx, doc, storage.SaveOptions{Session: source, Source: source})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.SetCheckpoint(ctx, "green", first.ID, "", false); err != nil {
			t.Fatal(err)
		}
		doc[snapshot.MemberMessages] = append(doc[snapshot.MemberMessages].([]any), map[string]any{"role": "user", "content": "and now?"})
		if _, err := repo.Save(ctx, doc, storage.SaveOptions{Session: source, Source: source}); err != nil {
			t.Fatal(err)
		}
		snap, err := repo.Show(ctx, source+"~1")
		if err != nil {
			t.Fatal(err)
		}
		if snap.Entry.ID != first.ID || !slices.Equal(snap.Checkpoints, []string{"green"}) || len(snap.SessionCheckpoints) != 1 {
			t.Errorf("%s~1 shows %s with checkpoints %v, want %s with [green]", source, snap.Entry.ID, snap.Checkpoints, first.ID)
		}
		whole, _, err := repo.Read(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		n, err := snap.Numbers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := agent.NumbersOf(whole, source); !reflect.DeepEqual(n, want) {
			t.Errorf("%s: Show counts\n%+v\nthe document read whole\n%+v", source, n, want)
		}
		live := agent.LiveMessages(whole)
		if snap.Records.Len() != len(live) {
			t.Fatalf("%s: %d live records, want %d", source, snap.Records.Len(), len(live))
		}
		for k, want := range live {
			raw, err := snap.Records.At(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if got := snap.Reader.Read(raw).Message; !reflect.DeepEqual(got, agent.ViewMessage(want)) {
				t.Errorf("%s: record %d reads as %+v, want %+v", source, k, got, agent.ViewMessage(want))
			}
		}
	}
}

// transcript is a document holding the records of a transcript in
// testdata, as a hook stores them.
func transcript(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			msgs = append(msgs, agent.Element(line, snapshot.Limits{}))
		}
	}
	return map[string]any{snapshot.MemberMessages: msgs}
}
