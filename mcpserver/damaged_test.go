package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// list_sessions left a session whose newest snapshot is missing out
// without a word, as if it were a ref someone else put there: an agent
// asking for its sessions could not tell one was lost. It is now named
// under unreadable, with a note saying what to do; a ref that holds no
// snapshot is still no session.
func TestListSessionsNamesUnreadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := openRepo(ctx, t, dir)
	t.Cleanup(func() { store.Close() })
	for _, name := range []string{"a", "b"} {
		if _, err := store.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi " + name}}}, storage.SaveOptions{Session: name}); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := store.SessionTip("b")
	if err != nil {
		t.Fatal(err)
	}
	hex := tip.String()
	if err := os.Remove(filepath.Join(dir, ".git", "objects", hex[:2], hex[2:])); err != nil {
		t.Fatal(err)
	}
	cs := (&fixture{store: store}).client(t, Options{})
	text := ok(t, cs, ToolListSessions, nil)
	type answer struct {
		sessionsAnswer
		Unreadable []string `json:"unreadable"`
		Note       string   `json:"note"`
	}
	var a answer
	decode(t, text, &a)
	if len(a.Sessions) != 1 || a.Sessions[0].Name != "a" || !slices.Equal(a.Unreadable, []string{"b"}) || !strings.Contains(a.Note, "git fsck") {
		t.Errorf("list_sessions with b's snapshot missing: %s\nwant a listed, b unreadable and a note saying what to do", text)
	}
	var one answer
	decode(t, ok(t, cs, ToolListSessions, map[string]any{"session": "a"}), &one)
	if len(one.Sessions) != 1 || len(one.Unreadable) != 0 {
		t.Errorf("session a asked for: %v listed, %v named unreadable", one.Sessions, one.Unreadable)
	}
}
