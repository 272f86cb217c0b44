// Package langchaingo keeps LangChainGo chat histories in git with
// git-snap.
//
// History implements LangChainGo's schema.ChatMessageHistory on one
// git-snap session (refs/snap/<session>): every change is a new
// snapshot, so the whole conversation, as it grew and as it was
// replaced or cleared, stays in history for `git snap log`, `show`,
// `diff` and `stats`. Messages are kept under "messages" in the shape
// those commands read, OpenAI's, with LangChainGo's own message type
// beside it so that reading back gives the same Go values:
//
//	{"role": "user", "type": "human", "content": "hi"}
//	{"role": "assistant", "type": "ai", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
//	{"role": "tool", "type": "tool", "tool_call_id": "c1", "content": "42"}
//
// Adding a message appends one blob to the session
// (gitsnap.Repository.Append), without rewriting the conversation. Clear never deletes: it records a
// snapshot with no messages, and the conversation before it stays in
// history.
//
// Limits: message content must be valid UTF-8 (git-snap stores JSON);
// a message type of the caller's own reads back as LangChainGo's type of
// the same GetType, keeping its content and name only; and since a
// repository redacts secrets, secrets in messages are stored, and read
// back, redacted.
package langchaingo

import (
	"context"
	"fmt"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Source is the Snap-Source of every snapshot a History writes.
const Source = "langchaingo"

// Labels of the snapshots a History writes, for `git snap log --label`.
// An added message is labelled LabelAdd and its LangChainGo type:
// "AddMessage human", "AddMessage ai".
const (
	LabelAdd   = "AddMessage"
	LabelSet   = "SetMessages"
	LabelClear = "Clear"
)

// History is a LangChainGo chat message history kept as a git-snap
// session. It is safe for concurrent use, also by several processes on
// one repository: messages added at once all land, one after another.
type History struct {
	repo    *gitsnap.Repository
	session string
}

var _ schema.ChatMessageHistory = (*History)(nil)

// New returns the history kept in session of repo (gitsnap.Open). The
// caller keeps ownership of repo and closes it.
func New(repo *gitsnap.Repository, session string) (*History, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return nil, err
	}
	return &History{repo: repo, session: session}, nil
}

// Session returns the session the history is kept in.
func (h *History) Session() string { return h.session }

// AddMessage records message as the next snapshot.
func (h *History) AddMessage(ctx context.Context, message llms.ChatMessage) error {
	if message == nil {
		return fmt.Errorf("langchaingo history %s: nil message", h.session)
	}
	enc := Encode(message)
	defer lockRepo(h.repo)()
	_, _, err := h.repo.Append(ctx, h.options(LabelAdd+" "+string(message.GetType())), func(tipRest map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: []any{enc}, Others: tipRest}, nil
	})
	return err
}

// AddUserMessage records a human message.
func (h *History) AddUserMessage(ctx context.Context, message string) error {
	return h.AddMessage(ctx, llms.HumanChatMessage{Content: message})
}

// AddAIMessage records an AI message.
func (h *History) AddAIMessage(ctx context.Context, message string) error {
	return h.AddMessage(ctx, llms.AIChatMessage{Content: message})
}

// Clear records a snapshot with no messages. The messages before it stay
// in the session's history (`git snap show <session>~1`). Clearing a
// history that was never written writes nothing.
func (h *History) Clear(ctx context.Context) error {
	return h.replace(ctx, LabelClear, []any{}, true)
}

// SetMessages records a snapshot whose messages are exactly messages;
// the ones it replaces stay in history.
func (h *History) SetMessages(ctx context.Context, messages []llms.ChatMessage) error {
	enc := make([]any, 0, len(messages))
	for i, m := range messages {
		if m == nil {
			return fmt.Errorf("langchaingo history %s: message %d is nil", h.session, i)
		}
		enc = append(enc, Encode(m))
	}
	return h.replace(ctx, LabelSet, enc, false)
}

// replace saves the tip's other members with new messages. A writer that
// adds a message meanwhile is not lost from history, but is not in the
// new tip: replacing is last-writer-wins, as for any store.
func (h *History) replace(ctx context.Context, label string, messages []any, skipIfNew bool) error {
	defer lockRepo(h.repo)()
	tip, err := h.repo.SessionTip(h.session)
	if err != nil {
		return err
	}
	doc := map[string]any{}
	if !tip.IsZero() {
		if doc, err = h.repo.Storage().Others(ctx, tip); err != nil {
			return err
		}
	} else if skipIfNew {
		return nil
	}
	doc[snapshot.MemberMessages] = messages
	_, err = h.repo.Save(ctx, doc, h.options(label))
	return err
}

// Messages returns the newest snapshot's messages, oldest first; none for
// a history never written.
func (h *History) Messages(ctx context.Context) ([]llms.ChatMessage, error) {
	defer lockRepo(h.repo)()
	tip, err := h.repo.SessionTip(h.session)
	if err != nil || tip.IsZero() {
		return []llms.ChatMessage{}, err
	}
	doc, _, err := h.repo.Read(ctx, tip)
	if err != nil {
		return nil, err
	}
	raw, _ := doc[snapshot.MemberMessages].([]any)
	out := make([]llms.ChatMessage, 0, len(raw))
	for _, r := range raw {
		out = append(out, Decode(r))
	}
	return out, nil
}

// repoLocks serialises this package's calls on each gitsnap.Repository:
// a Repository is for one goroutine at a time (go-git's object storage
// keeps unsynchronised state), while graphs and chains run
// concurrently. Other Repositories and other processes on the same
// repository still write at the same time, safely, through the
// compare-and-swap on the session's ref. One small mutex stays per
// Repository ever used.
var repoLocks sync.Map // *gitsnap.Repository → *sync.Mutex

func lockRepo(r *gitsnap.Repository) func() {
	m, _ := repoLocks.LoadOrStore(r, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (h *History) options(label string) storage.SaveOptions {
	return storage.SaveOptions{Session: h.session, Label: label, Source: Source}
}
