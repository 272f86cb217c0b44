package langchaingo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// histories gives each benchmark LangChainGo's in-memory history beside
// a git-snap one.
func histories(b *testing.B) map[string]schema.ChatMessageHistory {
	return map[string]schema.ChatMessageHistory{
		"memory":   memory.NewChatMessageHistory(),
		"git-snap": newHistory(b, openRepo(b, newRepo(b)), "bench"),
	}
}

// BenchmarkAddMessage adds one message to a growing conversation: with
// git-snap, a snapshot that writes one blob and the trees above it.
func BenchmarkAddMessage(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "git-snap"} {
		b.Run(name, func(b *testing.B) {
			h := histories(b)[name]
			i := 0
			for b.Loop() {
				i++
				if err := h.AddUserMessage(ctx, fmt.Sprintf("message %d: what about the login bug?", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMessages reads back a 100-message conversation, as a
// conversation buffer does before every model call.
func BenchmarkMessages(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "git-snap"} {
		b.Run(name, func(b *testing.B) {
			h := histories(b)[name]
			for i := range 100 {
				if err := h.AddAIMessage(ctx, fmt.Sprintf("reply %d", i)); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if msgs, err := h.Messages(ctx); err != nil || len(msgs) != 100 {
					b.Fatal(len(msgs), err)
				}
			}
		})
	}
}
