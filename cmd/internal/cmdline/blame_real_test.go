package cmdline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// realSession is the long real Claude Code session in testdata.
const realSession = "4d5611e5-241a-462a-8d15-5122611a9569"

// realProject is where the real session's agent worked: its tool calls
// name files under it, which the replay puts in the repository instead.
const realProject = "/home/USER/projects/spotter-worktrees/spotter-dov/"

// replayRealSession records the long real Claude Code session through the
// hook, as the agent wrote it, into a new repository: the files it edits
// start as its first whole Read of them showed them (what parts it read,
// for files it read in parts), committed by a person; each Edit and Write
// is made to the work tree when the transcript shows it, a hook call
// after its result; its one commit that git did not refuse is made when
// its result comes. It returns the repository and git and git snap
// runners in it.
func replayRealSession(t *testing.T) (dir string, gitIn func(stdin string, args ...string) string, snap func(args ...string) string) {
	t.Helper()
	dir, _, gitIn, snapIO := snapRepo(t)
	snap = func(args ...string) string {
		t.Helper()
		out, _ := snapIO(false, "", args...)
		return out
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "claude-code", realSession+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for path, content := range startingFiles(lines) {
		writeFile(t, filepath.Join(dir, path), content)
	}
	gitIn("", "add", "-A")
	gitIn("", "commit", "-q", "-m", "the project before the session")

	transcript := filepath.Join(dir, ".claude-projects", realSession+".jsonl")
	must(t, os.MkdirAll(filepath.Dir(transcript), 0o755))
	hook := func(event, tool string) {
		payload := `{"session_id":"` + realSession + `","transcript_path":"` + transcript + `","cwd":"` + dir + `","hook_event_name":"` + event + `","tool_name":"` + tool + `"}`
		snapIO(false, payload, "hook", "claude-code")
	}
	calls := map[string]toolUse{} // by id, the calls whose results call the hook
	var done strings.Builder
	for _, line := range lines {
		done.WriteString(line)
		var rec struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.IsSidechain {
			continue
		}
		var text string
		if rec.Type == "user" && json.Unmarshal(rec.Message.Content, &text) == nil && !strings.HasPrefix(text, "<") {
			must(t, os.WriteFile(transcript, []byte(done.String()), 0o644))
			hook("UserPromptSubmit", "")
			continue
		}
		var parts []toolUse
		_ = json.Unmarshal(rec.Message.Content, &parts)
		for _, p := range parts {
			switch {
			case p.Type == "tool_use" && (p.Name == "Edit" || p.Name == "Write" || p.Name == "Bash" && strings.Contains(p.Input.Command, "git commit")):
				calls[p.ID] = p
			case p.Type == "tool_result" && calls[p.ToolUseID].ID != "":
				call := calls[p.ToolUseID]
				if !p.IsError {
					call.apply(t, dir, gitIn)
				}
				must(t, os.WriteFile(transcript, []byte(done.String()), 0o644))
				hook("PostToolUse", call.Name)
			}
		}
	}
	must(t, os.WriteFile(transcript, data, 0o644))
	hook("Stop", "")
	return dir, gitIn, snap
}

// toolUse is a part of a Claude Code record: a tool call, or its result.
type toolUse struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Input     struct {
		FilePath   string `json:"file_path"`
		Content    string `json:"content"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
		Command    string `json:"command"`
	} `json:"input"`
}

// apply makes a call's change in the work tree in dir, as it was made in
// the agent's: a Write, an Edit, a commit of everything.
func (c toolUse) apply(t *testing.T, dir string, gitIn func(string, ...string) string) {
	t.Helper()
	if c.Name == "Bash" {
		gitIn("", "add", "-A")
		gitIn("", "commit", "-q", "-m", "feat: unified transcript visualization and debug parity (spotter-dov)")
		return
	}
	rel, ok := strings.CutPrefix(c.Input.FilePath, realProject)
	if !ok {
		return
	}
	path := filepath.Join(dir, rel)
	if c.Name == "Write" {
		writeFile(t, path, c.Input.Content)
		return
	}
	old, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(old), c.Input.OldString) {
		return // the part of the file this edit changes was never read
	}
	n := 1
	if c.Input.ReplaceAll {
		n = -1
	}
	writeFile(t, path, strings.Replace(string(old), c.Input.OldString, c.Input.NewString, n))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

// readToolLine is a line of a Read tool's result: "   12→text".
var readToolLine = regexp.MustCompile(`^ *([0-9]+)→(.*)$`)

// startingFiles are the files the session edits before it writes them
// whole, as its Reads showed them before its first edit: the first whole
// Read, else the parts read, in place.
func startingFiles(lines []string) map[string]string {
	reads := map[string]toolUse{}
	seen := map[string]bool{} // written or edited: what is read later is the agent's
	parts := map[string]map[int]string{}
	for _, line := range lines {
		var rec struct {
			IsSidechain bool `json:"isSidechain"`
			Message     struct {
				Content []json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.IsSidechain {
			continue
		}
		for _, raw := range rec.Message.Content {
			var p toolUse
			var result struct {
				Content any `json:"content"`
			}
			_ = json.Unmarshal(raw, &p)
			_ = json.Unmarshal(raw, &result)
			rel, ok := strings.CutPrefix(p.Input.FilePath, realProject)
			switch {
			case p.Type == "tool_use" && p.Name == "Read" && ok:
				reads[p.ID] = p
			case p.Type == "tool_use" && (p.Name == "Edit" || p.Name == "Write") && ok:
				seen[rel] = true
			case p.Type == "tool_result" && reads[p.ToolUseID].ID != "":
				rel := strings.TrimPrefix(reads[p.ToolUseID].Input.FilePath, realProject)
				if seen[rel] {
					continue
				}
				if parts[rel] == nil {
					parts[rel] = map[int]string{}
				}
				sc := bufio.NewScanner(strings.NewReader(resultText(result.Content)))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					if m := readToolLine.FindStringSubmatch(sc.Text()); m != nil {
						n := 0
						for _, d := range m[1] {
							n = 10*n + int(d-'0')
						}
						parts[rel][n] = m[2]
					}
				}
			}
		}
	}
	out := map[string]string{}
	for rel, ps := range parts {
		if !seen[rel] {
			continue // read, never edited: not needed
		}
		var ns []int
		for n := range ps {
			ns = append(ns, n)
		}
		sort.Ints(ns)
		var b bytes.Buffer
		for _, n := range ns {
			b.WriteString(ps[n] + "\n")
		}
		out[rel] = b.String()
	}
	return out
}

// resultText is a tool result's text: a string, or its text parts.
func resultText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			if m, ok := p.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// The long real session in testdata, recorded through the hook as the
// agent wrote it: blame tells each line of a file it wrote, rewrote
// whole a turn later, and a person then changed, as the transcript
// says, line by line (testdata/blame/transcript_computers.txt, written
// by reading the transcript: its Write of the file in turn 1, its Edit
// adding the @moduledoc, its Write of the whole file in turn 2).
func TestBlameRealSession(t *testing.T) {
	dir, gitIn, snap := replayRealSession(t)
	const file = "lib/spotter_web/live/transcript_computers.ex"
	path := filepath.Join(dir, file)
	old, err := os.ReadFile(path)
	must(t, err)
	edited := strings.Replace(string(old), "depends_on([:messages, :session_cwd])", "depends_on([:session_cwd, :messages])", 1)
	must(t, os.WriteFile(path, []byte(edited), 0o644))
	gitIn("", "commit", "-q", "-am", "a person reorders the inputs")

	got := snap("blame", file)
	want, err := os.ReadFile(filepath.Join("testdata", "blame", "transcript_computers.txt"))
	must(t, err)
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := "", ""
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		re := regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(w), regexp.QuoteMeta("{id}"), "[0-9a-f]+") + `$`)
		if !re.MatchString(g) || i >= len(gotLines) || i >= len(wantLines) {
			t.Fatalf("line %d:\n got %q\nwant %q\nwhole:\n%s", i+1, g, w, got)
		}
	}
}
