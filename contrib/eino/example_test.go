package eino_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cloudwego/eino/compose"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/contrib/eino"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// A graph that stops for approval before it publishes keeps its
// checkpoint in git: the run can end here and be resumed by another
// process, and every checkpoint stays in the session's history.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "eino-example-")
	defer os.RemoveAll(dir)
	paths, _ := gitstore.InitBare(filepath.Join(dir, "agent-state.git"))
	repo, err := gitsnap.OpenPaths(ctx, paths, gitsnap.Options{
		GitEnv: gitstore.GitEnv{CommitterName: "agent", CommitterEmail: "agent@example.com"},
		Now:    func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer repo.Close()
	checkpoints := eino.New(repo, eino.Options{})

	g := compose.NewGraph[string, string]()
	_ = g.AddLambdaNode("draft", compose.InvokableLambda(func(_ context.Context, in string) (string, error) { return in + " drafted", nil }))
	_ = g.AddLambdaNode("publish", compose.InvokableLambda(func(_ context.Context, in string) (string, error) { return in + " published", nil }))
	_ = g.AddEdge(compose.START, "draft")
	_ = g.AddEdge("draft", "publish")
	_ = g.AddEdge("publish", compose.END)
	graph, err := g.Compile(ctx, compose.WithCheckPointStore(checkpoints), compose.WithInterruptBeforeNodes([]string{"publish"}))
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = graph.Invoke(ctx, "post", compose.WithCheckPointID("run-1"))
	if info, ok := compose.ExtractInterruptInfo(err); ok {
		fmt.Println("interrupted before", info.BeforeNodes)
	}
	out, _ := graph.Invoke(ctx, "", compose.WithCheckPointID("run-1")) // from git
	fmt.Println("resumed:", out)

	_ = checkpoints.Delete(ctx, "run-1")
	_, found, _ := checkpoints.Get(ctx, "run-1")
	fmt.Println("found after Delete:", found)

	tip, _ := repo.SessionTip("eino-run-1")
	_ = repo.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		fmt.Printf("%s#%d %s\n", e.Header.Session, e.Header.Seq, e.Header.Label)
		return nil
	})
	// Output:
	// interrupted before [publish]
	// resumed: post drafted published
	// found after Delete: false
	// eino-run-1#2 eino delete
	// eino-run-1#1 eino checkpoint
}
