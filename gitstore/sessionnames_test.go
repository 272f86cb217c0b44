package gitstore

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// The three ways a person names a session, read in the library so that
// Go users get what every command takes: the most recently active when
// none is named, a unique prefix, a name given to it.
func TestFindSessionPrefixesNamesAndLatest(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	var nse *storage.NoSessionsError
	if _, err := s.LatestSession(ctx); !errors.As(err, &nse) {
		t.Fatalf("LatestSession of an empty store = %v, want a NoSessionsError", err)
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, name := range []string{"4d5611e5-241a", "4d5699aa-0000", "fix-login"} {
		_, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: name, Time: at.Add(time.Duration(i) * time.Minute)})
		must(t, err)
	}
	if got, err := s.LatestSession(ctx); err != nil || got != "fix-login" {
		t.Errorf("LatestSession = %q, %v; want fix-login, saved last", got, err)
	}
	for arg, want := range map[string]string{"4d5611": "4d5611e5-241a", "fix-": "fix-login", "fix-login": "fix-login"} {
		if got, err := s.FindSession(ctx, arg); err != nil || got != want {
			t.Errorf("FindSession(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	for arg, says := range map[string]string{"4d56": "is ambiguous: it starts sessions 4d5611e5-241a, 4d5699aa-0000", "fix": "names no session", "nosuch": "names no session"} {
		if _, err := s.FindSession(ctx, arg); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("FindSession(%q) = %v, want an error saying %q", arg, err, says)
		}
	}
	if _, err := s.Resolve(ctx, "4d56"); err == nil || !strings.Contains(err.Error(), "it starts sessions 4d5611e5-241a, 4d5699aa-0000") {
		t.Errorf("Resolve(4d56) = %v, want the sessions it starts listed", err)
	}
	a, err := s.NameSession(ctx, "phoenix", "4d5611", "the\tfirst\nprompt", false)
	must(t, err)
	if a.Session != "4d5611e5-241a" || a.About != "the first prompt" {
		t.Errorf("NameSession = %+v", a)
	}
	tip, _ := s.SessionTip("4d5611e5-241a")
	for _, rev := range []string{"phoenix", "4d5611e5", "4d5611e5-241a"} {
		if id, err := s.Resolve(ctx, rev); err != nil || id != tip {
			t.Errorf("Resolve(%q) = %s, %v; want %s", rev, id, err, tip)
		}
	}
	if _, err := s.NameSession(ctx, "phoenix", "fix-login", "", false); err == nil {
		t.Error("a name in use moved without force")
	}
	if _, err := s.NameSession(ctx, "fix-login", "4d5611", "", true); err == nil {
		t.Error("a session's own name was given to another")
	}
	must(t, s.Unname(ctx, "phoenix"))
	if _, err := s.FindSession(ctx, "phoenix"); err == nil {
		t.Error("a forgotten name still names its session")
	}
}

// A name never takes over a snapshot id: one that reads as an id (hex,
// four characters or more: an agent's title can be one) is refused, a
// whole id names its snapshot whatever the names file says, and a name
// given before the check that starts an id is ambiguous there, not
// silently another session.
func TestNamesNeverShadowIDs(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	a, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: "alpha"})
	must(t, err)
	b, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "beta"})
	must(t, err)
	id := b.ID.String()
	for _, name := range []string{id, id[:8], strings.ToUpper(id[:6]), "dead", "c0ffee"} {
		if _, err := s.NameSession(ctx, name, "alpha", "", true); err == nil || !strings.Contains(err.Error(), "reads as a snapshot id") {
			t.Errorf("NameSession(%q) = %v, want it refused", name, err)
		}
	}
	for _, name := range []string{"abc", "fix-2", "deadbeef-x"} {
		if _, err := s.NameSession(ctx, name, "alpha", "", false); err != nil {
			t.Errorf("NameSession(%q) = %v", name, err)
		}
	}
	// A names file written before the check, or by hand.
	must(t, os.WriteFile(s.namesPath(), []byte(id+"\talpha\t\n"+id[:10]+"\talpha\t\n"), 0o644))
	if got, err := s.Resolve(ctx, id); err != nil || got != b.ID {
		t.Errorf("Resolve(whole id) = %s, %v; want beta's %s, not alpha's %s", got, err, b.ID, a.ID)
	}
	if _, err := s.Resolve(ctx, id[:10]); err == nil || !strings.Contains(err.Error(), "is ambiguous: a name given to session alpha and the start of a snapshot id") {
		t.Errorf("Resolve(a name that starts an id) = %v, want it ambiguous", err)
	}
}
