package gitstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// A harness saves the agent's state after each turn, then reads it back,
// lists the session and compares two snapshots.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	paths, _ := gitstore.InitBare(filepath.Join(dir, "agent-state.git"))

	clock := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	store, err := gitstore.OpenPaths(ctx, paths, gitstore.Options{Counter: session.Counter{}, View: session.View,
		Identity: gitstore.Signature{Name: "agent", Email: "agent@example.com"},
		Now:      func() time.Time { clock = clock.Add(time.Minute); return clock },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	doc := map[string]any{
		"config":   map[string]any{"model": "m1"},
		"messages": []any{map[string]any{"id": "1", "role": "user", "content": "fix the login bug"}},
	}
	first, _ := store.Save(ctx, doc, storage.SaveOptions{Session: "fix-login", Turn: 1, Label: "UserPromptSubmit"})

	doc["messages"] = append(doc["messages"].([]any),
		map[string]any{"id": "2", "role": "assistant", "content": "Done.", "usage": map[string]any{"input_tokens": 900, "output_tokens": 12}})
	second, _ := store.Save(ctx, doc, storage.SaveOptions{Session: "fix-login", Turn: 1, Label: "Stop"})
	if _, err := store.SetCheckpoint(ctx, "fixed", second.ID, "tests pass", false); err != nil {
		log.Fatal(err)
	}

	// Read back: JSON-equal to what was saved.
	id, _ := store.Resolve(ctx, "snap/fix-login/fixed")
	got, _, _ := store.Read(ctx, id)
	fmt.Println("read back equal:", snapshot.Equal(got, doc))

	// The log reads commits only.
	err = store.Walk(ctx, []storage.ID{second.ID}, func(e storage.Entry) error {
		fmt.Printf("%s#%d %s (%d messages)\n", e.Header.Session, e.Header.Seq, e.Header.Label, e.Header.Messages)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	d, _ := store.Diff(ctx, first.ID, second.ID)
	for _, m := range d.Messages {
		fmt.Println(m.Op, "message", m.Key)
	}
	fmt.Printf("tokens: %+d in, %+d out\n", d.Tokens.Input, d.Tokens.Output)
	// Output:
	// read back equal: true
	// fix-login#2 Stop (2 messages)
	// fix-login#1 UserPromptSubmit (1 messages)
	// added message 2
	// tokens: +900 in, +12 out
}
