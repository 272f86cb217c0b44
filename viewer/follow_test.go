package viewer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A timeline open on a running session takes in its new turns as the
// hook records them, without a reload: the hook (what git snap hook
// claude-code does, gitsnap.RecordHook) writes the real long session's
// first turn, the page is opened, then the hook writes the second turn
// while the page stays as it is.
func TestBrowserTimelineFollowsARunningSession(t *testing.T) {
	tb := newTab(t)
	f := tb.f
	const session = "0f0110e5-0000-4000-8000-00000000f011"
	turn1, turn2 := splitAtSecondPrompt(t, "../testdata/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	transcript := filepath.Join(t.TempDir(), session+".jsonl")
	hook := func(records []map[string]any) {
		t.Helper()
		out, err := os.OpenFile(transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(out, "%s\n", line)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		claudeHook(t, f.dir, session, transcript, `"hook_event_name":"Stop"`)
	}
	hook(turn1)
	f.sessions[session] = "claude-code"

	tb.open(t, "/session/"+session)
	rows := `document.querySelectorAll("#turns tbody tr").length`
	if n := eval[int](t, tb, rows); n != 1 {
		t.Fatalf("the first turn recorded: the rail lists %d turns, want 1", n)
	}
	if follow := eval[string](t, tb, `document.querySelector("#session-head").dataset.follow || ""`); follow != "1" {
		t.Fatal("the timeline of a session by its name does not follow it")
	}
	eval[bool](t, tb, `(window.__stayed = true)`) // gone if the page reloads
	hook(turn2)
	tb.waitFor(t, `window.__stayed === true && `+rows+` === 2 && document.querySelector("#timeline #turn-2") !== null`)
	prompt := ""
	for _, r := range turn2 {
		if msg, _ := r["message"].(map[string]any); r["type"] == "user" {
			if s, ok := msg["content"].(string); ok && !strings.HasPrefix(s, "<") {
				prompt = s
				break
			}
		}
	}
	if got := eval[string](t, tb, `document.querySelector("#timeline #turn-2 blockquote.prompt").textContent`); prompt == "" || !strings.Contains(got, strings.Fields(prompt)[0]) {
		t.Errorf("the second turn's prompt shows as %q, want %q", got, prompt)
	}
	if note := eval[string](t, tb, `document.querySelector("#live").textContent`); note != "updated" {
		t.Errorf("the page says %q, want updated", note)
	}
	tb.clean(t)

	// A page of an older snapshot does not move: it says there is a newer one.
	tb.open(t, "/session/"+session+"~1")
	if follow := eval[string](t, tb, `document.querySelector("#session-head").dataset.follow || ""`); follow != "" {
		t.Error("the timeline of session~1 follows the session")
	}
	tb.clean(t)
}
