package eino_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/contrib/eino"
)

// reviewState is the graph's local state; Eino's serializer needs its
// type registered, in every process that reads it back.
type reviewState struct {
	Drafts   []string
	Reviewer string
}

func init() { schema.RegisterName[*reviewState]("git_snap_eino_test_review_state") }

// reviewGraph drafts, is reviewed, publishes; it stops before review and
// before publish, as a human-in-the-loop graph would.
func reviewGraph(ctx context.Context, store compose.CheckPointStore) (compose.Runnable[string, string], error) {
	g := compose.NewGraph[string, string](compose.WithGenLocalState(func(context.Context) *reviewState {
		return &reviewState{Reviewer: "nobody"}
	}))
	steps := []struct {
		name string
		pre  compose.StatePreHandler[string, *reviewState]
		post compose.StatePostHandler[string, *reviewState]
	}{
		{"draft", nil, func(_ context.Context, out string, s *reviewState) (string, error) {
			s.Drafts = append(s.Drafts, out)
			return out, nil
		}},
		{"review", func(_ context.Context, in string, s *reviewState) (string, error) {
			return in + " reviewed-by-" + s.Reviewer, nil
		}, nil},
		{"publish", nil, nil},
	}
	for _, st := range steps {
		var opts []compose.GraphAddNodeOpt
		if st.pre != nil {
			opts = append(opts, compose.WithStatePreHandler(st.pre))
		}
		if st.post != nil {
			opts = append(opts, compose.WithStatePostHandler(st.post))
		}
		name := st.name
		lambda := compose.InvokableLambda(func(_ context.Context, in string) (string, error) {
			if name == "review" {
				return in, nil // the pre-handler did the reviewing
			}
			return in + " " + name + "ed", nil
		})
		if err := g.AddLambdaNode(name, lambda, opts...); err != nil {
			return nil, err
		}
	}
	for _, e := range [][2]string{{compose.START, "draft"}, {"draft", "review"}, {"review", "publish"}, {"publish", compose.END}} {
		if err := g.AddEdge(e[0], e[1]); err != nil {
			return nil, err
		}
	}
	return g.Compile(ctx,
		compose.WithCheckPointStore(store),
		compose.WithInterruptBeforeNodes([]string{"review", "publish"}),
		compose.WithGraphName("review"))
}

// step runs the graph once against the repository at dir: from its
// checkpoint (or fork), as reviewer when given. It returns the output,
// or "interrupted before <nodes>".
func step(ctx context.Context, dir, id, forkTo, reviewer, input string) (string, error) {
	store, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return "", err
	}
	defer store.Close()
	r, err := reviewGraph(ctx, eino.New(store, eino.Options{}))
	if err != nil {
		return "", err
	}
	opts := []compose.Option{compose.WithCheckPointID(id)}
	if forkTo != "" {
		ctx, opts = eino.Fork(ctx, id, forkTo)
	}
	if reviewer != "" {
		opts = append(opts, compose.WithStateModifier(func(_ context.Context, _ compose.NodePath, s any) error {
			s.(*reviewState).Reviewer = reviewer
			return nil
		}))
	}
	out, err := r.Invoke(ctx, input, opts...)
	if info, ok := compose.ExtractInterruptInfo(err); ok {
		return "interrupted before " + strings.Join(info.BeforeNodes, ","), nil
	}
	return out, err
}

// TestHelperProcess is the second process of the tests below: it runs
// one step of the graph, as told by its environment, and prints what
// came of it.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("EINO_HELPER_REPO")
	if dir == "" {
		t.Skip("run by the other tests in a process of its own")
	}
	out, err := step(context.Background(), dir, os.Getenv("EINO_HELPER_ID"), os.Getenv("EINO_HELPER_FORK"), os.Getenv("EINO_HELPER_REVIEWER"), "")
	if err != nil {
		fmt.Printf("HELPER-ERROR: %v\n", err)
		return
	}
	fmt.Printf("HELPER-OUT: %s\n", out)
}

// inAnotherProcess runs step in a fresh process of the test binary, so
// that nothing but the git repository carries the checkpoint over.
func inAnotherProcess(t *testing.T, dir, id, forkTo, reviewer string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "EINO_HELPER_REPO="+dir, "EINO_HELPER_ID="+id, "EINO_HELPER_FORK="+forkTo, "EINO_HELPER_REVIEWER="+reviewer)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "HELPER-OUT: "); ok {
			return v
		}
		if v, ok := strings.CutPrefix(line, "HELPER-ERROR: "); ok {
			t.Fatalf("helper process: %s", v)
		}
	}
	t.Fatalf("helper process said nothing:\n%s", out)
	return ""
}

func TestGraphInterruptedThenResumedInAnotherProcess(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)

	// This process runs to the first interrupt.
	out, err := step(ctx, dir, "post-1", "", "", "hello")
	must(t, err)
	if out != "interrupted before review" {
		t.Fatalf("first run: %s", out)
	}
	// Another process resumes from git and stops at the next interrupt.
	if out := inAnotherProcess(t, dir, "post-1", "", "alice"); out != "interrupted before publish" {
		t.Fatalf("second run: %s", out)
	}
	// A third finishes; the state set by the second (the reviewer)
	// came through git.
	if out := inAnotherProcess(t, dir, "post-1", "", ""); out != "hello drafted reviewed-by-alice published" {
		t.Fatalf("third run: %s", out)
	}

	// What the real git sees: two snapshots, newest first, saying
	// where the graph stopped; a repository git finds sound.
	log := git(t, dir, "log", "--format=%s|%(trailers:key=Snap-Label,valueonly)", "refs/snap/eino-post-1")
	var lines []string
	for l := range strings.SplitSeq(log, "\n") {
		if l != "" { // the trailer comes with its own newline
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "eino checkpoint (") || !strings.Contains(lines[0], "next: publish|eino checkpoint") ||
		!strings.Contains(lines[1], "next: review|eino checkpoint") {
		t.Fatalf("git log:\n%s", log)
	}
	show := git(t, dir, "show", "refs/snap/eino-post-1:snapshot.json")
	for _, want := range []string{`"checkpoint_id": "post-1"`, `"format": "json"`, `"hello drafted reviewed-by-alice"`, `"git_snap_eino_test_review_state"`} {
		if !strings.Contains(show, want) {
			t.Errorf("snapshot.json lacks %s:\n%s", want, show)
		}
	}
	git(t, dir, "fsck", "--strict")
}

func TestGraphForkedInAnotherProcess(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	out, err := step(ctx, dir, "post-2", "", "", "hi")
	must(t, err)
	if out != "interrupted before review" {
		t.Fatalf("first run: %s", out)
	}
	store := openRepo(t, dir)
	parentTip, _ := store.SessionTip("eino-post-2")

	// Fork: another process resumes post-2 as bob and writes post-2-bob.
	if out := inAnotherProcess(t, dir, "post-2", "post-2-bob", "bob"); out != "interrupted before publish" {
		t.Fatalf("fork run: %s", out)
	}
	if tip, _ := store.SessionTip("eino-post-2"); tip != parentTip {
		t.Fatal("the fork moved the checkpoint it was forked from")
	}
	docs, entries := history(t, store, "eino-post-2-bob")
	if len(entries) != 1 || entries[0].Header.Label != eino.LabelFork {
		t.Fatalf("fork session: %d snapshots, first %+v", len(entries), entries[0].Header)
	}
	id, session, snap, ok := eino.ForkedFrom(docs[0])
	if !ok || id != "post-2" || session != "eino-post-2" || snap != parentTip {
		t.Fatalf("forked_from = %q %q %s %v, want post-2 eino-post-2 %s", id, session, snap, ok, parentTip)
	}

	// Both lines go on, each from its own checkpoint, in fresh processes.
	if out := inAnotherProcess(t, dir, "post-2-bob", "", ""); out != "hi drafted reviewed-by-bob published" {
		t.Fatalf("fork resumed: %s", out)
	}
	if out := inAnotherProcess(t, dir, "post-2", "", "carol"); out != "interrupted before publish" {
		t.Fatalf("parent resumed: %s", out)
	}
	if out := inAnotherProcess(t, dir, "post-2", "", ""); out != "hi drafted reviewed-by-carol published" {
		t.Fatalf("parent finished: %s", out)
	}

	// git: the fork's first commit names its parent in snapshot.json.
	if n := git(t, dir, "rev-list", "--count", "refs/snap/eino-post-2-bob"); n != "1" {
		t.Fatalf("fork session has %s commits", n)
	}
	forked := git(t, dir, "show", "refs/snap/eino-post-2-bob:snapshot.json")
	if !strings.Contains(forked, `"forked_from"`) || !strings.Contains(forked, parentTip.String()) {
		t.Fatalf("fork snapshot.json:\n%s", forked)
	}
	if subj := git(t, dir, "log", "-1", "--format=%s", "refs/snap/eino-post-2-bob"); !strings.HasPrefix(subj, "eino fork (") {
		t.Fatalf("fork subject: %s", subj)
	}
	git(t, dir, "fsck", "--strict")
}

// A run given both Eino options but not Fork's context still forks; only
// the record of the parent is missing.
func TestForkWithoutContextStillForks(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	_, err := step(ctx, dir, "p", "", "", "x")
	must(t, err)
	store := openRepo(t, dir)
	r, err := reviewGraph(ctx, eino.New(store, eino.Options{}))
	must(t, err)
	_, err = r.Invoke(ctx, "", compose.WithCheckPointID("p"), compose.WithWriteToCheckPointID("q"))
	if _, ok := compose.ExtractInterruptInfo(err); !ok {
		t.Fatalf("want an interrupt, got %v", err)
	}
	docs, entries := history(t, store, "eino-q")
	if len(entries) != 1 || entries[0].Header.Label != eino.LabelSet {
		t.Fatalf("q: %d snapshots", len(entries))
	}
	if _, _, _, ok := eino.ForkedFrom(docs[0]); ok {
		t.Fatal("a parent was recorded without Fork")
	}
	// Fork's context records the parent once: running the same fork
	// again in that context writes an ordinary snapshot.
	fctx, opts := eino.Fork(ctx, "p", "z")
	for range 2 {
		_, err = r.Invoke(fctx, "", opts...)
		must(t, ignoreInterrupt(err))
	}
	docs, entries = history(t, store, "eino-z")
	if len(entries) != 2 || entries[0].Header.Label != eino.LabelFork || entries[1].Header.Label != eino.LabelSet {
		t.Fatalf("z: %d snapshots, %+v", len(entries), entries)
	}
	if _, _, _, ok := eino.ForkedFrom(docs[1]); ok {
		t.Fatal("the second write recorded a parent too")
	}
	// A "fork" onto itself is an ordinary write.
	sctx, opts := eino.Fork(ctx, "p", "p")
	_, err = r.Invoke(sctx, "", opts...)
	must(t, ignoreInterrupt(err))
	docs, entries = history(t, store, "eino-p")
	if last := entries[len(entries)-1].Header.Label; len(entries) != 2 || last != eino.LabelSet {
		t.Fatalf("p after a fork onto itself: %d snapshots, last %q", len(entries), last)
	}
	if _, _, _, ok := eino.ForkedFrom(docs[1]); ok {
		t.Fatal("a fork onto itself recorded a parent")
	}
}

func ignoreInterrupt(err error) error {
	if _, ok := compose.ExtractInterruptInfo(err); ok {
		return nil
	}
	return err
}
