package agenttrace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/storage"
)

// validate checks a record against what Agent Trace v0.1 requires of
// one (testdata/trace-record.schema.json), with formats asserted.
func validate(t *testing.T, r Record) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join("testdata", "trace-record.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

// One commit's lines make one record: its files, each contributor's
// ranges (neighbouring lines joined), the model as models.dev names it,
// and the snapshot each agent's conversation was found at.
func TestRecords(t *testing.T) {
	id := func(c byte) storage.ID { var x storage.ID; x[0] = c; return x }
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	e1 := &provenance.Edit{Session: "s1", Snapshot: id(9), Seq: 2, Turn: 1, Prompt: "write a", Agent: "claude-code", Model: "claude-opus-4-6"}
	e2 := &provenance.Edit{Session: "s2", Snapshot: id(8), Seq: 1, Turn: 3, Prompt: "fix b", Agent: "codex", Model: "gpt-5.1-codex"}
	line := func(n int, commit storage.ID, path string, orig int, kind provenance.Kind, e *provenance.Edit) provenance.Line {
		return provenance.Line{N: n, Commit: commit, OrigPath: path, OrigLine: orig, Kind: kind, Edit: e, Time: at, Committed: at}
	}
	ch := &provenance.Changes{Files: []*provenance.File{
		{Path: "a.go", Lines: []provenance.Line{
			line(1, id(1), "a.go", 1, provenance.Agent, e1), line(2, id(1), "a.go", 2, provenance.Agent, e1),
			line(3, id(1), "a.go", 3, provenance.Person, nil), line(4, id(1), "a.go", 4, provenance.Agent, e1),
			line(5, id(2), "a.go", 9, provenance.Mixed, e2), line(6, id(2), "a.go", 10, provenance.Unknown, nil),
		}},
		{Path: "b.go", Lines: []provenance.Line{line(1, id(1), "old/b.go", 7, provenance.Agent, e2)}},
	}}
	records := Records(ch, Tool{Name: "git-snap", Version: "test"})
	for _, r := range records {
		if err := validate(t, r); err != nil {
			t.Errorf("record of %s: %v", r.VCS.Revision, err)
		}
	}
	// The check itself: a record the specification refuses is refused.
	bad := records[0]
	bad.Version, bad.Files = "0.1.0", append([]File{{Path: "x"}}, bad.Files...)
	if err := validate(t, bad); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("a record with version 0.1.0 and a file with no conversations passes: %v", err)
	}
	if len(records) != 2 {
		t.Fatalf("%d records, want one per commit", len(records))
	}
	r := records[0]
	if r.VCS.Revision != id(1).String() || r.Version != "0.1" || len(r.Files) != 2 {
		t.Fatalf("first record: %+v", r)
	}
	a := r.Files[0]
	if a.Path != "a.go" || len(a.Conversations) != 2 {
		t.Fatalf("a.go: %+v", a)
	}
	ai, human := a.Conversations[0], a.Conversations[1]
	if ai.Contributor.Type != "ai" || ai.Contributor.ModelID != "anthropic/claude-opus-4-6" ||
		len(ai.Ranges) != 2 || ai.Ranges[0] != (Range{1, 2}) || ai.Ranges[1] != (Range{4, 4}) {
		t.Errorf("the agent's conversation: %+v %+v", ai.Contributor, ai.Ranges)
	}
	if human.Contributor.Type != "human" || human.Ranges[0] != (Range{3, 3}) {
		t.Errorf("the person's: %+v %+v", human.Contributor, human.Ranges)
	}
	if b := r.Files[1]; b.Path != "old/b.go" || b.Conversations[0].Ranges[0] != (Range{7, 7}) || b.Conversations[0].Contributor.ModelID != "openai/gpt-5.1-codex" {
		t.Errorf("a file by its path in the commit, its lines there: %+v", b)
	}
	refs := r.Metadata["dev.git-snap"].(map[string]any)["conversations"].([]Reference)
	if len(refs) != 2 || refs[0] != (Reference{File: 0, Conversation: 0, Snapshot: id(9).String(), Session: "s1", Turn: 1, Prompt: "write a", Agent: "claude-code"}) || refs[1].File != 1 {
		t.Errorf("references: %+v", refs)
	}
	second := records[1].Files[0].Conversations
	if second[0].Contributor.Type != "mixed" || second[1].Contributor.Type != "unknown" || second[1].Contributor.ModelID != "" {
		t.Errorf("mixed and unknown: %+v %+v", second[0].Contributor, second[1].Contributor)
	}
	if again := Records(ch, Tool{Name: "git-snap", Version: "test"}); again[0].ID != r.ID || again[1].ID == r.ID {
		t.Error("a commit's record id is not its own, or not the same in every export")
	}
	if ModelID("openrouter/qwen3") != "openrouter/qwen3" || ModelID("my-model") != "my-model" || len(ModelID(strings.Repeat("x", 300))) != 250 {
		t.Error("ModelID")
	}
}
