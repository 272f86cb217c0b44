package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// update reads what the transcript at path gained since rest at the hook
// event (or "import"), as a store would keep it: the new rest, the
// records read, the warnings.
func update(t *testing.T, path, event string, rest map[string]any) (map[string]any, []any, []string) {
	t.Helper()
	p := Payload{Agent: "claude-code", Event: event, SessionID: "s", TranscriptPath: path}
	u, err := ReadUpdate(ClaudeCode{}, p, nil, rest, Reading{})
	if err != nil {
		t.Fatal(err)
	}
	// As the store gives it back: numbers as snapshot.Number.
	data, err := snapshot.Marshal(u.Others)
	must(t, err)
	back, err := snapshot.Parse(data, snapshot.Limits{})
	must(t, err)
	return back.(map[string]any), u.Messages, u.Warnings
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, err)
	must(t, f.Close())
}

// A last line without its newline is one the agent is writing while the
// session goes on, and the whole file's last line once the session has
// ended or the file is imported; a newline that comes after it later
// ends that line, and nothing is read twice.
func TestLastLineWithoutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	must(t, os.WriteFile(path, []byte(`{"type":"user","n":1}`+"\n"+`{"type":"user","n":2}`), 0o600))

	rest, msgs, _ := update(t, path, "PostToolUse", nil)
	if len(msgs) != 1 {
		t.Fatalf("in the middle of a session: %d records read, want the complete line alone", len(msgs))
	}
	rest, msgs, warns := update(t, path, "SessionEnd", rest)
	if len(msgs) != 1 || len(warns) > 0 {
		t.Fatalf("at the session's end: %v %q, want the last line", msgs, warns)
	}
	if l, _ := LayoutFrom(rest); !l.Files[0].Open {
		t.Fatalf("the layout does not say the last line was read without its newline: %+v", l.Files[0])
	}
	// The agent goes on (a resumed session): the newline, then a line.
	appendTo(t, path, "\n"+`{"type":"user","n":3}`+"\n")
	rest, msgs, warns = update(t, path, "PostToolUse", rest)
	if len(msgs) != 1 || len(warns) > 0 || msgs[0].(map[string]any)["n"] == nil {
		t.Fatalf("after the newline came: %v %q, want line 3 alone", msgs, warns)
	}
	l, _ := LayoutFrom(rest)
	if len(l.Files) != 1 || l.Files[0].Lines != 3 || l.Files[0].Open {
		t.Errorf("layout %+v, want one file of 3 lines, the last ended", l.Files)
	}
}

// A last line read without its newline that the agent then makes longer
// was cut where it was read: the file is read again from its start as a
// new generation, the first reading kept.
func TestLastLineThatGoesOnIsARewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	must(t, os.WriteFile(path, []byte(`{"type":"user","n":1}`+"\n"+`{"type":"user","n":`), 0o600))
	rest, msgs, warns := update(t, path, "import", nil)
	if len(msgs) != 2 || len(warns) != 1 || !strings.Contains(warns[0], path+": line 2, the last, has no newline and is not JSON") {
		t.Fatalf("import of a file cut short: %d records, warnings %q", len(msgs), warns)
	}
	if msgs[1] != `{"type":"user","n":` {
		t.Errorf("the cut line is kept as %v, want its bytes", msgs[1])
	}
	appendTo(t, path, "2}\n")
	rest, msgs, warns = update(t, path, "PostToolUse", rest)
	if len(msgs) != 2 || len(warns) != 1 || !strings.Contains(warns[0], "rewritten") {
		t.Fatalf("the line went on: %d records, warnings %q, want the file again as a new generation", len(msgs), warns)
	}
	l, _ := LayoutFrom(rest)
	if len(l.Files) != 2 || l.Files[1].Gen != 1 || l.Files[1].Lines != 2 {
		t.Errorf("layout %+v, want generation 1 of 2 lines", l.Files)
	}
}

// WholeLines reads a file's last line without its newline; Lines leaves
// it for the next call.
func TestWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	must(t, os.WriteFile(path, []byte("a\nb\nc"), 0o600))
	if lines, next, err := Lines(path, 0, 0); err != nil || len(lines) != 2 || next != 4 {
		t.Errorf("Lines: %q %d %v", lines, next, err)
	}
	lines, next, err := WholeLines(path, 0, 0)
	if err != nil || len(lines) != 3 || string(lines[2]) != "c" || next != 5 {
		t.Errorf("WholeLines: %q %d %v", lines, next, err)
	}
	if lines, next, err := WholeLines(path, 5, 0); err != nil || len(lines) != 0 || next != 5 {
		t.Errorf("WholeLines at the end: %q %d %v", lines, next, err)
	}
}

// A subagent's file is done when SubagentStop names it: its last line is
// read without a newline, while the main transcript's, still being
// written, waits.
func TestSubagentStopReadsItsFileWhole(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "s.jsonl")
	sub := filepath.Join(dir, "s", "subagents", "agent-a1.jsonl")
	must(t, os.MkdirAll(filepath.Dir(sub), 0o755))
	must(t, os.WriteFile(main, []byte(`{"type":"user","n":1}`+"\n"+`{"type":"user","n":`), 0o600))
	must(t, os.WriteFile(sub, []byte(`{"type":"user","isSidechain":true,"agentId":"a1"}`+"\n"+`{"type":"assistant","isSidechain":true,"agentId":"a1"}`), 0o600))
	p := Payload{Agent: "claude-code", Event: "SubagentStop", SessionID: "s", TranscriptPath: main, Subagent: sub}
	extra, err := ClaudeCode{}.Transcripts(p)
	must(t, err)
	u, err := ReadUpdate(ClaudeCode{}, p, extra, nil, Reading{})
	must(t, err)
	if len(u.Messages) != 3 || len(u.Warnings) > 0 {
		t.Errorf("%d records (%q), want the main file's complete line and both of the subagent's", len(u.Messages), u.Warnings)
	}
}
