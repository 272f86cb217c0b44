package testdocs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// RealSession is the long real Claude Code session in
// testdata/claude-code, and RealProject where its agent worked: its
// tool calls name files under it.
const (
	RealSession = "4d5611e5-241a-462a-8d15-5122611a9569"
	RealProject = "/home/USER/projects/spotter-worktrees/spotter-dov/"
)

// Replay is a real Claude Code session made again in a work tree, as
// its agent worked: the files it edits start as its Reads showed them,
// each Edit and Write is made when the transcript shows its result, and
// its commit when git took it.
type Replay struct {
	lines   []string
	project string
	// Start holds the files the session edits before it writes them
	// whole, by path from the work tree's root: as its first whole Read
	// showed them, else the parts it read, in place.
	Start map[string]string
}

// NewReplay reads a transcript whose agent worked in project.
func NewReplay(transcript []byte, project string) *Replay {
	r := &Replay{lines: strings.SplitAfter(string(transcript), "\n"), project: project}
	r.Start = r.startingFiles()
	return r
}

// ReplayStep is where a replay is: the transcript as written so far, and
// the hook call the agent makes there (a prompt's, or a tool call's
// after its result, or Stop at the end).
type ReplayStep struct {
	Transcript []byte
	Event      string // UserPromptSubmit, PostToolUse or Stop
	Tool       string // the tool of a PostToolUse
}

// Run makes the session's changes in the work tree dir, calling step
// where the agent's hook is called and commit where its commit was
// made (a commit of every change).
func (r *Replay) Run(dir string, step func(ReplayStep) error, commit func(message string) error) error {
	calls := map[string]toolUse{} // by id, the calls whose results call the hook
	var done strings.Builder
	for _, line := range r.lines {
		done.WriteString(line)
		prompt, parts, ok := readRecord(line)
		switch {
		case !ok:
			continue
		case prompt:
			if err := step(ReplayStep{[]byte(done.String()), "UserPromptSubmit", ""}); err != nil {
				return err
			}
			continue
		}
		for _, p := range parts {
			if p.Type == "tool_use" && (p.Name == "Edit" || p.Name == "Write" || p.Name == "Bash" && strings.Contains(p.Input.Command, "git commit")) {
				calls[p.ID] = p
				continue
			}
			call := calls[p.ToolUseID]
			if p.Type != "tool_result" || call.ID == "" {
				continue
			}
			if !p.IsError {
				if err := r.apply(call, dir, commit); err != nil {
					return err
				}
			}
			if err := step(ReplayStep{[]byte(done.String()), "PostToolUse", call.Name}); err != nil {
				return err
			}
		}
	}
	return step(ReplayStep{[]byte(done.String()), "Stop", ""})
}

// readRecord reads a record of the main thread: whether it is a prompt
// the user typed, else its parts; ok is false for a line that is no
// such record.
func readRecord(line string) (prompt bool, parts []toolUse, ok bool) {
	var rec struct {
		Type        string `json:"type"`
		IsSidechain bool   `json:"isSidechain"`
		Message     struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil || rec.IsSidechain {
		return false, nil, false
	}
	var text string
	if rec.Type == "user" && json.Unmarshal(rec.Message.Content, &text) == nil && !strings.HasPrefix(text, "<") {
		return true, nil, true
	}
	_ = json.Unmarshal(rec.Message.Content, &parts)
	return false, parts, true
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
// the agent's: a Write, an Edit, a commit.
func (r *Replay) apply(c toolUse, dir string, commit func(string) error) error {
	if c.Name == "Bash" { // git commit -m "$(cat <<'EOF'\nSUBJECT\n…": the subject
		lines := strings.Split(c.Input.Command, "\n")
		return commit(lines[min(1, len(lines)-1)])
	}
	rel, ok := strings.CutPrefix(c.Input.FilePath, r.project)
	if !ok {
		return nil
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if c.Name == "Write" {
		return writeFile(path, c.Input.Content)
	}
	old, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(old), c.Input.OldString) {
		return nil // the part of the file this edit changes was never read
	}
	n := 1
	if c.Input.ReplaceAll {
		n = -1
	}
	return writeFile(path, strings.Replace(string(old), c.Input.OldString, c.Input.NewString, n))
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// readToolLine is a line of a Read tool's result: "   12→text".
var readToolLine = regexp.MustCompile(`^ *([0-9]+)→(.*)$`)

// startingFiles are the files the session edits, as its Reads showed
// them before its first edit of each.
func (r *Replay) startingFiles() map[string]string {
	reads := map[string]toolUse{}
	edited := map[string]bool{} // written or edited: what is read later is the agent's
	parts := map[string]map[int]string{}
	for _, line := range r.lines {
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
			rel, ok := strings.CutPrefix(p.Input.FilePath, r.project)
			switch {
			case p.Type == "tool_use" && p.Name == "Read" && ok:
				reads[p.ID] = p
			case p.Type == "tool_use" && (p.Name == "Edit" || p.Name == "Write") && ok:
				edited[rel] = true
			case p.Type == "tool_result" && reads[p.ToolUseID].ID != "":
				rel := strings.TrimPrefix(reads[p.ToolUseID].Input.FilePath, r.project)
				if !edited[rel] {
					readInto(parts, rel, resultText(result.Content))
				}
			}
		}
	}
	out := map[string]string{}
	for rel, ps := range parts {
		if !edited[rel] {
			continue // read, never edited: not needed
		}
		ns := make([]int, 0, len(ps))
		for n := range ps {
			ns = append(ns, n)
		}
		sort.Ints(ns)
		var b strings.Builder
		for _, n := range ns {
			b.WriteString(ps[n] + "\n")
		}
		out[rel] = b.String()
	}
	return out
}

// readInto notes the numbered lines of a Read's result in parts[rel].
func readInto(parts map[string]map[int]string, rel, text string) {
	if parts[rel] == nil {
		parts[rel] = map[int]string{}
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := readToolLine.FindStringSubmatch(sc.Text()); m != nil {
			var n int
			if _, err := fmt.Sscan(m[1], &n); err == nil {
				parts[rel][n] = m[2]
			}
		}
	}
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
