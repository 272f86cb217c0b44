package gitstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// A harness that saves after every turn keeps each session to about ten
// snapshots, as git snap does with retention.max_per_session: 10.
func ExampleStore_ApplyRetention() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	paths, _ := gitstore.InitBare(filepath.Join(dir, "agent-state.git"))
	store, err := gitstore.OpenPaths(ctx, paths, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: gitstore.Signature{Name: "agent", Email: "agent@example.com"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	policy := gitstore.RetentionPolicy{MaxPerSession: 10}
	var messages []any
	for turn := 1; turn <= 14; turn++ {
		messages = append(messages, map[string]any{"role": "user", "content": fmt.Sprint("turn ", turn)})
		e, err := store.Save(ctx, map[string]any{"messages": messages}, storage.SaveOptions{Session: "run", Turn: turn})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := store.ApplyRetention(ctx, "run", e.Header.Seq, policy)
		if err != nil {
			fmt.Println(err)
			return
		}
		if len(res.Removed) > 0 {
			fmt.Printf("turn %d: snapshot %d of the session, pruned %d, kept %d\n", turn, e.Header.Seq, len(res.Removed), len(res.Kept))
		}
	}
	// Output:
	// turn 12: snapshot 12 of the session, pruned 2, kept 10
	// turn 14: snapshot 12 of the session, pruned 2, kept 10
}
