// Package agenttrace writes who wrote a range's lines as Agent Trace
// v0.1 trace records (agent-trace.dev): one record per commit, its
// revision the commit, listing the files and line ranges it brought in
// that the range's last commit still holds, each range under its
// contributor (ai, mixed, human, unknown) and, for an agent's, the
// model. Line numbers are the lines' places in that commit, so that a
// reader finds a line's record as the specification says: git blame
// names the commit and the line there, the record of that commit the
// range holding it.
//
// A conversation has no URL: the session lives in the repository. Its
// reference is the snapshot whose capture introduced the lines, which
// git snap show resolves, kept with the session, turn and prompt under
// the record's metadata ("dev.git-snap"), as the specification leaves
// vendors' data.
package agenttrace

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/storage"
)

// Version is the version of the specification the records follow,
// written as its schema's pattern asks (major.minor).
const Version = "0.1"

// Record is a trace record.
type Record struct {
	Version   string         `json:"version"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	VCS       *VCS           `json:"vcs,omitempty"`
	Tool      *Tool          `json:"tool,omitempty"`
	Files     []File         `json:"files"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// VCS names the revision the record is of.
type VCS struct {
	Type     string `json:"type"`
	Revision string `json:"revision"`
}

// Tool is what wrote the record.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// File is a file's ranges, by conversation.
type File struct {
	Path          string         `json:"path"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is the ranges one contributor wrote.
type Conversation struct {
	Contributor *Contributor `json:"contributor,omitempty"`
	Ranges      []Range      `json:"ranges"`
}

// Contributor is a person, an agent's model, both, or not known.
type Contributor struct {
	Type    string `json:"type"`
	ModelID string `json:"model_id,omitempty"`
}

// Range is lines from StartLine to EndLine, from 1.
type Range struct {
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
}

// Reference is where a conversation of a record was found: git-snap's
// metadata for it, under "dev.git-snap".
type Reference struct {
	File         int    `json:"file"`         // the index of the file in Files
	Conversation int    `json:"conversation"` // of the conversation in the file's
	Snapshot     string `json:"snapshot"`     // git snap show SNAPSHOT shows the session there
	Session      string `json:"session"`
	Remote       string `json:"remote,omitempty"`
	Turn         int    `json:"turn"`
	Prompt       string `json:"prompt"`
	Agent        string `json:"agent"`
}

// Records writes the lines of ch as one record per commit, oldest
// commit first (by the time it was made), files and ranges in order. tool names
// git-snap and its version.
func Records(ch *provenance.Changes, tool Tool) []Record {
	byCommit := map[storage.ID][]provenance.Line{}
	for _, f := range ch.Files {
		for _, l := range f.Lines {
			byCommit[l.Commit] = append(byCommit[l.Commit], l)
		}
	}
	var out []Record
	for commit, lines := range byCommit {
		out = append(out, record(commit, lines, tool))
	}
	slices.SortFunc(out, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.Timestamp, b.Timestamp), cmp.Compare(a.VCS.Revision, b.VCS.Revision))
	})
	return out
}

// record is one commit's record.
func record(commit storage.ID, lines []provenance.Line, tool Tool) Record {
	slices.SortStableFunc(lines, func(a, b provenance.Line) int {
		return cmp.Or(cmp.Compare(a.OrigPath, b.OrigPath), a.OrigLine-b.OrigLine)
	})
	r := Record{Version: Version, ID: uuidOf(commit.String()), Timestamp: lines[0].Committed.UTC().Format("2006-01-02T15:04:05Z"),
		VCS: &VCS{Type: "git", Revision: commit.String()}, Tool: &tool, Files: []File{}}
	var refs []Reference
	for start := 0; start < len(lines); {
		end := start
		for end < len(lines) && lines[end].OrigPath == lines[start].OrigPath {
			end++
		}
		f, fileRefs := file(lines[start:end], len(r.Files))
		r.Files = append(r.Files, f)
		refs = append(refs, fileRefs...)
		start = end
	}
	if len(refs) > 0 {
		r.Metadata = map[string]any{"dev.git-snap": map[string]any{"conversations": refs}}
	}
	return r
}

// file is one file's conversations: a contributor's ranges each, in the
// order they first come.
func file(lines []provenance.Line, index int) (File, []Reference) {
	f := File{Path: lines[0].OrigPath, Conversations: []Conversation{}}
	var refs []Reference
	at := map[string]int{}
	for _, l := range lines {
		k := conversationKey(l)
		i, ok := at[k]
		if !ok {
			i = len(f.Conversations)
			at[k] = i
			f.Conversations = append(f.Conversations, Conversation{Contributor: contributor(l)})
			if e := l.Edit; e != nil {
				refs = append(refs, Reference{File: index, Conversation: i, Snapshot: e.Snapshot.String(), Session: e.Session, Remote: e.Remote,
					Turn: e.Turn, Prompt: e.Prompt, Agent: e.Agent})
			}
		}
		c := &f.Conversations[i]
		if n := len(c.Ranges); n > 0 && c.Ranges[n-1].EndLine == l.OrigLine-1 {
			c.Ranges[n-1].EndLine = l.OrigLine
		} else {
			c.Ranges = append(c.Ranges, Range{l.OrigLine, l.OrigLine})
		}
	}
	return f, refs
}

// conversationKey is what a line's conversation is told apart by: the
// agent's edit that wrote it, else who did.
func conversationKey(l provenance.Line) string {
	if e := l.Edit; e != nil {
		return string(l.Kind) + " " + e.Snapshot.String()
	}
	return string(l.Kind)
}

func contributor(l provenance.Line) *Contributor {
	switch l.Kind {
	case provenance.Agent, provenance.Mixed:
		c := &Contributor{Type: map[provenance.Kind]string{provenance.Agent: "ai", provenance.Mixed: "mixed"}[l.Kind]}
		if l.Edit != nil {
			c.ModelID = ModelID(l.Edit.Model)
		}
		return c
	case provenance.Person:
		return &Contributor{Type: "human"}
	}
	return &Contributor{Type: "unknown"}
}

// providers name the makers of models by the start of their names, as
// models.dev names them.
var providers = []struct{ prefix, provider string }{
	{"claude", "anthropic"}, {"gpt-", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"},
	{"codex", "openai"}, {"chatgpt", "openai"}, {"gemini", "google"}, {"gemma", "google"}, {"grok", "xai"},
	{"deepseek", "deepseek"}, {"qwen", "alibaba"}, {"mistral", "mistral"}, {"codestral", "mistral"},
	{"devstral", "mistral"}, {"kimi", "moonshotai"}, {"glm", "zai"},
}

// ModelID is a model's name as models.dev writes it (provider/model):
// a name with its provider already is kept, one of a known maker gets
// its provider, any other is kept as it is. At most 250 bytes.
func ModelID(model string) string {
	id := model
	if !strings.Contains(model, "/") {
		for _, p := range providers {
			if strings.HasPrefix(strings.ToLower(model), p.prefix) {
				id = p.provider + "/" + model
				break
			}
		}
	}
	if len(id) > 250 {
		id = id[:250]
	}
	return id
}

// uuidOf is a name-based UUID (version 5's layout) of name: the same
// commit's record has the same id in every export.
func uuidOf(name string) string {
	sum := sha1.Sum([]byte("git-snap agent trace " + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
}
