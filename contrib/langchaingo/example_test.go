package langchaingo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/memory"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/contrib/langchaingo"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// A conversation chain whose memory is a git-snap session: each message
// is a snapshot, and a later process (or `git snap show conversation`)
// reads the conversation back.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "langchaingo-example-")
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

	history, _ := langchaingo.New(repo, "conversation")
	llm := fake.NewFakeLLM([]string{"Nice to meet you, Ada!", "Your name is Ada."})
	chain := chains.NewConversation(llm, memory.NewConversationBuffer(memory.WithChatHistory(history)))
	for _, say := range []string{"Hi, my name is Ada.", "What is my name?"} {
		reply, _ := chains.Run(ctx, chain, say)
		fmt.Println("AI:", reply)
	}

	_ = history.Clear(ctx) // a new snapshot with no messages; nothing is deleted
	msgs, _ := history.Messages(ctx)
	fmt.Println("messages after Clear:", len(msgs))

	tip, _ := repo.SessionTip("conversation")
	_ = repo.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		fmt.Printf("%s#%d %s (%d messages)\n", e.Header.Session, e.Header.Seq, e.Header.Label, e.Header.Messages)
		return nil
	})
	// Output:
	// AI: Nice to meet you, Ada!
	// AI: Your name is Ada.
	// messages after Clear: 0
	// conversation#5 Clear (0 messages)
	// conversation#4 AddMessage ai (4 messages)
	// conversation#3 AddMessage human (3 messages)
	// conversation#2 AddMessage ai (2 messages)
	// conversation#1 AddMessage human (1 messages)
}
