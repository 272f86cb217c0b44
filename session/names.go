package session

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// FirstPrompt returns the text of a session's first prompt on one line,
// read from its newest snapshot, or "" when there is none.
func FirstPrompt(ctx context.Context, s storage.Reader, session string) (string, error) {
	tip, err := s.SessionTip(session)
	if err != nil || tip.IsZero() {
		return "", err
	}
	doc, _, err := s.Read(ctx, tip)
	if err != nil {
		return "", err
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	return agent.FirstPrompt(msgs, 120), nil
}

// Title returns the title the agent gave a session (Claude Code's
// /rename or summary, OpenCode's title), read from its newest snapshot,
// or "" when there is none.
func Title(ctx context.Context, s storage.Reader, session string) (string, error) {
	tip, err := s.SessionTip(session)
	if err != nil || tip.IsZero() {
		return "", err
	}
	doc, _, err := s.Read(ctx, tip)
	if err != nil {
		return "", err
	}
	return agent.Title(doc), nil
}
