package cmdline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// agentturn SESSION PROMPT [FILE=SRC…] is a turn of a Claude Code
// session as the agent writes it: its transcript (under $WORK/.agents)
// gains the prompt (none when PROMPT is "-": the turn goes on), a Write
// of each FILE with SRC's content, its result and an answer; each FILE
// is written; and $WORK/turn.json is the PostToolUse payload to give
// git snap hook claude-code (stdin $WORK/turn.json). $MODEL names the
// model (claude-opus-4-6 when unset).
func cmdAgentTurn(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: agentturn SESSION PROMPT [FILE=SRC...]")
	}
	session, prompt := args[0], args[1]
	work := ts.Getenv("WORK")
	path := filepath.Join(work, ".agents", session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		ts.Fatalf("agentturn: %v", err)
	}
	old, _ := os.ReadFile(path)
	n := strings.Count(string(old), "\n")
	cwd := ts.MkAbs(".")
	model := ts.Getenv("MODEL")
	if model == "" {
		model = "claude-opus-4-6"
	}
	var recs []map[string]any
	rec := func(r map[string]any) {
		n++
		r["uuid"] = fmt.Sprintf("%s-%d", session, n)
		r["sessionId"], r["cwd"] = session, cwd
		r["timestamp"] = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second).Format(time.RFC3339)
		recs = append(recs, r)
	}
	if prompt != "-" {
		rec(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	}
	var last string
	for _, a := range args[2:] {
		file, src, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("agentturn: %q is not FILE=SRC", a)
		}
		content := ts.ReadFile(src)
		last = ts.MkAbs(file)
		if err := os.MkdirAll(filepath.Dir(last), 0o755); err != nil {
			ts.Fatalf("agentturn: %v", err)
		}
		if err := os.WriteFile(last, []byte(content), 0o644); err != nil {
			ts.Fatalf("agentturn: %v", err)
		}
		id := fmt.Sprintf("toolu_%s_%d", session, n)
		rec(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "model": model, "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Write", "input": map[string]any{"file_path": last, "content": content}}},
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 10 + len(content)}}})
		rec(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "File written."}}}})
	}
	rec(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "model": model, "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Done."}}, "usage": map[string]any{"input_tokens": 100, "output_tokens": 5}}})
	var b strings.Builder
	b.Write(old)
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			ts.Fatalf("agentturn: %v", err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("agentturn: %v", err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": cwd, "hook_event_name": "PostToolUse",
		"tool_name": "Write", "tool_input": map[string]any{"file_path": last}, "tool_response": map[string]any{}})
	if err := os.WriteFile(filepath.Join(work, "turn.json"), payload, 0o644); err != nil {
		ts.Fatalf("agentturn: %v", err)
	}
}

// cmpids A B compares two files line by line, as cmp does, but for
// "{id}" in B, which stands for a run of hex digits in A: a snapshot's
// id, which changes with the work folder the session was recorded in.
func cmdCmpIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpids file want")
	}
	got := strings.Split(ts.ReadFile(args[0]), "\n")
	want := strings.Split(ts.ReadFile(args[1]), "\n")
	for i := range max(len(got), len(want)) {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !regexp.MustCompile(`^`+strings.ReplaceAll(regexp.QuoteMeta(w), regexp.QuoteMeta("{id}"), "[0-9a-f]+")+`$`).MatchString(g) || i >= len(got) || i >= len(want) {
			ts.Logf("%s:\n%s", args[0], ts.ReadFile(args[0]))
			ts.Fatalf("line %d: got %q, want %q", i+1, g, w)
		}
	}
}
