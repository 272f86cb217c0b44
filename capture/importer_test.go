package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// importCorpus writes n Claude Code sessions made from a real one, each
// under its own id, and two files of one session id that hold different
// transcripts (a collision the names must tell apart); it returns the
// folder.
func importCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "projects", "app")
	must(t, os.MkdirAll(dir, 0o777))
	const id = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "claude-code", "tool_heavy.jsonl"))
	must(t, err)
	for i := range n {
		own := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		must(t, os.WriteFile(filepath.Join(dir, own+".jsonl"), bytes.ReplaceAll(raw, []byte(id), []byte(own)), 0o666))
	}
	short, err := os.ReadFile(filepath.Join("..", "testdata", "claude-code", "short.jsonl"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "turn-1.jsonl"), short, 0o666))
	must(t, os.WriteFile(filepath.Join(dir, "turn-2.jsonl"), bytes.Replace(short, []byte(`"type"`), []byte(`"type" `), 1), 0o666))
	return dir
}

// refsOf lists a repository's session refs with their commits.
func refsOf(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/snap/").Output()
	must(t, err)
	return string(out)
}

// TestImporterMakesWhatOneByOneMakes imports a plan with two goroutines
// and packs small enough that there are several, and checks that it
// makes the very commits importing each transcript in turn makes, in
// packs, not loose objects; that each session is reported once; and
// that importing again adds nothing and writes no pack.
func TestImporterMakesWhatOneByOneMakes(t *testing.T) {
	ctx := context.Background()
	folder := importCorpus(t, 24)
	a := agent.ClaudeCode{}
	plan, err := agent.PlanImport(a, "", []string{folder}, snapshot.Limits{})
	must(t, err)

	oneDir, one := newStore(t)
	for _, it := range plan.Items {
		in := Ingest{Store: one, Adapter: a}
		name, _, err := in.Claim(ctx, it.Session, it.Path)
		must(t, err)
		_, _, err = in.Import(ctx, name, it.Path)
		must(t, err)
	}

	dir, s := newStore(t)
	var done []ImportResult
	im := Importer{Store: s, Adapter: a, Workers: 2, PackBytes: 100_000, Done: func(r ImportResult) { done = append(done, r) }}
	must(t, im.Run(ctx, plan.Items))
	if got, want := refsOf(t, dir), refsOf(t, oneDir); got != want {
		t.Fatalf("refs:\n%s\none by one:\n%s", got, want)
	}
	if len(done) != len(plan.Items) {
		t.Errorf("%d sessions reported, want %d", len(done), len(plan.Items))
	}
	seen := map[string]bool{}
	for _, r := range done {
		if seen[r.Item.Session] || !r.Added {
			t.Errorf("session %s reported twice or as not added", r.Item.Session)
		}
		seen[r.Item.Session] = true
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	loose, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
	if len(packs) < 2 || len(loose) > 0 {
		t.Errorf("%d packs and %d loose objects, want several packs and none loose", len(packs), len(loose))
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}

	done = nil
	must(t, im.Run(ctx, plan.Items))
	for _, r := range done {
		if r.Added {
			t.Errorf("imported again, %s added a snapshot", r.Item.Session)
		}
	}
	if again, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack")); len(again) != len(packs) {
		t.Errorf("importing again wrote %d packs", len(again)-len(packs))
	}
	if strings.Count(refsOf(t, dir), "\n") != len(plan.Items) {
		t.Errorf("sessions after importing again:\n%s", refsOf(t, dir))
	}
}

// TestImporterStopsWhole cancels an import part-way and checks that the
// sessions read whole are in place, no other, and that importing again
// makes what an import that was never stopped makes.
func TestImporterStopsWhole(t *testing.T) {
	folder := importCorpus(t, 30)
	a := agent.ClaudeCode{}
	plan, err := agent.PlanImport(a, "", []string{folder}, snapshot.Limits{})
	must(t, err)
	wantDir, want := newStore(t)
	must(t, Importer{Store: want, Adapter: a}.Run(context.Background(), plan.Items))

	dir, s := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	read := 0
	im := Importer{Store: s, Adapter: a, Workers: 2, Progress: func(p ImportProgress) {
		if read = p.Sessions; read == 10 {
			cancel()
		}
	}}
	if err := im.Run(ctx, plan.Items); err != context.Canceled {
		t.Fatalf("a cancelled import: %v", err)
	}
	part := refsOf(t, dir)
	if n := strings.Count(part, "\n"); n < 10 || n >= len(plan.Items) {
		t.Errorf("%d sessions in place after a stop at the tenth", n)
	}
	for _, line := range strings.Split(strings.TrimSpace(part), "\n") {
		if !strings.Contains(refsOf(t, wantDir), line+"\n") {
			t.Errorf("a session not as the whole import makes it: %s", line)
		}
	}
	must(t, Importer{Store: s, Adapter: a}.Run(context.Background(), plan.Items))
	if got := refsOf(t, dir); got != refsOf(t, wantDir) {
		t.Errorf("imported again after the stop:\n%s\nwant:\n%s", got, refsOf(t, wantDir))
	}
}

// TestImporterRedacts checks that a secret in a transcript is replaced
// before the batch writes it: the pack holds the placeholder, never the
// secret, and the snapshot says how many it replaced.
func TestImporterRedacts(t *testing.T) {
	folder := importCorpus(t, 3)
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	path := filepath.Join(folder, "00000001-0000-4000-8000-000000000001.jsonl")
	raw, err := os.ReadFile(path)
	must(t, err)
	must(t, os.WriteFile(path, bytes.Replace(raw, []byte(`"text":"`), []byte(`"text":"my token is `+secret+` `), 1), 0o666))
	a := agent.ClaudeCode{}
	plan, err := agent.PlanImport(a, "", []string{folder}, snapshot.Limits{})
	must(t, err)
	dir, s := newStore(t)
	var redacted int
	im := Importer{Store: s, Adapter: a, Done: func(r ImportResult) { redacted += r.Entry.Header.Redacted }}
	must(t, im.Run(context.Background(), plan.Items))
	if redacted != 1 {
		t.Errorf("%d secrets replaced, want 1", redacted)
	}
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch").Output()
	must(t, err)
	if bytes.Contains(out, []byte(secret)) || !bytes.Contains(out, []byte("[REDACTED:github-token]")) {
		t.Errorf("the secret is in the repository, or its placeholder is not")
	}
}

// TestImporterRefusesSessionsPastTheDocumentLimit: an import reads a
// transcript in steps, so no one read sees it whole; a session whose
// transcripts hold more than MaxDocumentBytes together is refused before
// anything is written, naming the file and the setting.
func TestImporterRefusesSessionsPastTheDocumentLimit(t *testing.T) {
	ctx := context.Background()
	folder := importCorpus(t, 3)
	a := agent.ClaudeCode{}
	plan, err := agent.PlanImport(a, "", []string{folder}, snapshot.Limits{})
	must(t, err)
	largest := int64(0)
	for _, it := range plan.Items {
		fi, err := os.Stat(it.Path)
		must(t, err)
		largest = max(largest, fi.Size())
	}
	dir, s := newStore(t)
	im := Importer{Store: s, Adapter: a, MaxDocumentBytes: largest - 1}
	err = im.Run(ctx, plan.Items)
	var ie *agent.ImportError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "limits.max_document_bytes") {
		t.Fatalf("err = %v, want an ImportError naming limits.max_document_bytes", err)
	}
	if refs := refsOf(t, dir); refs != "" {
		t.Errorf("refs written by a refused import:\n%s", refs)
	}
	im.MaxDocumentBytes = largest
	must(t, im.Run(ctx, plan.Items))
}

// TestImporterLeavesNoSessionCaches imports sessions in several steps
// each and checks that the batch makes the commits importing one by one
// makes (each step goes on from the cache of the one before, kept in
// memory), that it leaves no session's cache under .git/snap/, and that
// a session grown since is recorded as one that kept its caches is:
// the save rebuilds them from the tip, and writes them.
func TestImporterLeavesNoSessionCaches(t *testing.T) {
	ctx := context.Background()
	folder := importCorpus(t, 4)
	a := agent.ClaudeCode{}
	plan, err := agent.PlanImport(a, "", []string{folder}, snapshot.Limits{})
	must(t, err)
	grown := plan.Items[0].Path
	whole, err := os.ReadFile(grown)
	must(t, err)
	lines := bytes.SplitAfter(whole, []byte("\n"))
	must(t, os.WriteFile(grown, bytes.Join(lines[:len(lines)/2], nil), 0o666))
	const step = 8 << 10 // tool_heavy.jsonl is read in five steps

	oneDir, one := newStore(t)
	importOne := func(s *gitstore.Store, it agent.ImportItem) {
		in := Ingest{Store: s, Adapter: a, MaxReadBytes: step}
		name, _, err := in.Claim(ctx, it.Session, it.Path)
		must(t, err)
		_, _, err = in.Import(ctx, name, it.Path)
		must(t, err)
	}
	for _, it := range plan.Items {
		importOne(one, it)
	}
	dir, s := newStore(t)
	must(t, Importer{Store: s, Adapter: a, Workers: 2, MaxReadBytes: step}.Run(ctx, plan.Items))
	if got, want := refsOf(t, dir), refsOf(t, oneDir); got != want {
		t.Fatalf("refs:\n%s\none by one:\n%s", got, want)
	}
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "refs/snap/"+plan.Items[1].Session).Output()
	must(t, err)
	if n, _ := strconv.Atoi(strings.TrimSpace(string(out))); n < 3 {
		t.Fatalf("a session imported in %d steps, want several", n)
	}
	caches := func(dir string) []string {
		files, _ := filepath.Glob(filepath.Join(dir, ".git", "snap", "cache", "*", "*", "*"))
		return files
	}
	if left := caches(dir); len(left) > 0 {
		t.Errorf("the import left session caches: %v", left)
	}

	must(t, os.WriteFile(grown, whole, 0o666))
	importOne(one, plan.Items[0])
	importOne(s, plan.Items[0])
	if got, want := refsOf(t, dir), refsOf(t, oneDir); got != want {
		t.Fatalf("refs after the session grew:\n%s\none by one:\n%s", got, want)
	}
	if len(caches(dir)) == 0 {
		t.Error("the save after the import wrote no cache")
	}
}
