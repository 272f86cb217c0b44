package cmdline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The sessions of testdata/claude-code/short.jsonl and tool_heavy.jsonl:
// an import names them by the sessionId their records carry.
const (
	shortID     = "55604662-cf2a-4331-851a-ec234028f8ca"
	toolHeavyID = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
)

// schemaRepo is a repository made from the real sessions in testdata
// (two Claude Code transcripts, a Codex rollout), a session whose
// snapshots change members and files, a checkpoint and a snapshot saved
// without redaction, so that every list of every output has entries.
func schemaRepo(t *testing.T) (run func(args ...string) []byte) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	// Two commits: every snapshot is taken at the second, which pr finds.
	git("commit", "-q", "--allow-empty", "-m", "base")
	git("commit", "-q", "--allow-empty", "-m", "work")
	projects := filepath.Join(dir, "projects", "-home-u-app")
	for _, f := range []string{"short.jsonl", "tool_heavy.jsonl"} { // sessions named by the sessionId they carry
		copyFile(t, filepath.Join("..", "..", "..", "testdata", "claude-code", f), filepath.Join(projects, f))
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("one.json", `{"messages":[{"role":"user","content":"hi"}],"config":{"temperature":0.2},"files":{"notes.md":{"content":"a\n"}}}`)
	write("two.json", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"config":{"temperature":0.7},"files":{"notes.md":{"content":"b\n"},"run.sh":{"content":"echo\n","mode":"100755"}}}`)
	write("leaky.json", `{"messages":[{"role":"user","content":"deploy with AKIAI44QH8DHBEXAMPLE please"}]}`)
	vars := map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
	}
	run = func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
		if code := e.run(context.Background(), args); code != 0 && args[0] != "scan" && (args[0] != "search" || code != 1) {
			t.Fatalf("git snap %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
		}
		return out.Bytes()
	}
	run("import", "--from", "claude-code", filepath.Join(dir, "projects"))
	codex, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	run("import", "--from", "codex", codex)
	// A real rollout with token counts that name no model: stats lists
	// them as "" among the models without a price, as the schema says.
	run("import", "--from", "codex", filepath.Join(codex, "..", "codex-real", "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"))
	run("save", "-s", "d", "--turn", "1", "-l", "first", "one.json")
	run("save", "-s", "d", "-m", "second", "two.json")
	// A session whose captured notes.md a commit then took: blame
	// finds its lines.
	run("save", "-s", "e", "one.json")
	write("notes.md", "a\n")
	git("add", "notes.md")
	git("commit", "-q", "-m", "notes")
	run("save", "-s", "e", "-m", "after the commit", "one.json")
	run("checkpoint", "green", shortID, "-m", "tests pass")
	run("checkpoint", "done", "d")
	write(".git/snap/config.yaml", "redact:\n  disabled: true\n")
	run("save", "-s", "raw", "leaky.json")
	return run
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEveryJSONOutputHasASchemaAndATest: every command with --json is in
// jsonOutputs (so --json FIELD,… and --jq work on it), its schema is in
// docs/schema, and TestJSONMatchesSchemas runs it.
func TestEveryJSONOutputHasASchemaAndATest(t *testing.T) {
	src, err := os.ReadFile("json_schema_test.go")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	for _, cmd := range e.newApp().Commands {
		if !hasFlag(cmd.Flags, "json") {
			continue
		}
		out, ok := jsonOutputs[cmd.Name]
		if !ok {
			t.Errorf("%s has --json and no entry in jsonOutputs", cmd.Name)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", "..", "docs", "schema", out.schema+".schema.json")); err != nil {
			t.Errorf("%s: %v", cmd.Name, err)
		}
		if fields, err := schemaFields(cmd.Name); err != nil || len(fields) == 0 {
			t.Errorf("%s: the schema gives no fields: %v", cmd.Name, err)
		}
		if !strings.Contains(string(src), `[]string{"`+cmd.Name+`", "--json"`) {
			t.Errorf("TestJSONMatchesSchemas runs no %s --json", cmd.Name)
		}
	}
}

// TestJSONFieldsAndJQ: gh's --json FIELD,… and --jq EXPR, on the
// outputs as the schemas describe them.
func TestJSONFieldsAndJQ(t *testing.T) {
	run := schemaRepo(t)
	var log struct {
		SchemaVersion int              `json:"schema_version"`
		Snapshots     []map[string]any `json:"snapshots"`
	}
	if err := json.Unmarshal(run("log", "--json", "id,seq", "d"), &log); err != nil {
		t.Fatal(err)
	}
	if log.SchemaVersion != 1 || len(log.Snapshots) != 2 || len(log.Snapshots[0]) != 2 || log.Snapshots[0]["seq"] != 2.0 {
		t.Errorf("log --json id,seq d = %+v", log)
	}
	// A word after --json that is no list of fields is a revision, as before.
	if out := run("log", "--json", "d"); !bytes.Contains(out, []byte(`"label": "first"`)) {
		t.Errorf("log --json d:\n%s", out)
	}
	if got := string(run("log", "d", "--jq", ".snapshots[].seq")); got != "2\n1\n" {
		t.Errorf("log --jq .snapshots[].seq = %q", got)
	}
	var all struct{ Sessions []struct{ Name string } }
	if err := json.Unmarshal(run("sessions", "--json"), &all); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range all.Sessions {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if got, want := string(run("sessions", "--jq", `[.sessions[].name] | sort | join(",")`)), strings.Join(names, ",")+"\n"; len(names) < 5 || got != want {
		t.Errorf("sessions --jq = %q, want %q", got, want)
	}
	if got := string(run("show", "d", "--json", "snapshot", "--jq", ".snapshot.session")); got != "d\n" {
		t.Errorf("show --json snapshot --jq = %q", got)
	}
	if got := string(run("stats", "d", "--jq", ".sessions")); got != "1\n" {
		t.Errorf("stats --jq .sessions = %q", got)
	}
	var errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &errOut, dir: t.TempDir(), getenv: func(string) string { return "" }}
	if code := e.run(context.Background(), []string{"log", "--json=id,nosuch"}); code != 2 || !strings.Contains(errOut.String(), `"nosuch" is no field of log's output; its fields are `) {
		t.Errorf("an unknown field: exit %d, %s", code, errOut.String())
	}
	errOut.Reset()
	if code := e.run(context.Background(), []string{"log", "--jq", ".snapshots["}); code != 2 || !strings.Contains(errOut.String(), "--jq") {
		t.Errorf("a jq expression that does not parse: exit %d, %s", code, errOut.String())
	}
}

// TestJSONMatchesSchemas checks every reading command's --json against
// its schema in docs/schema: every key there, none more, times, ids and
// lists as docs/json.md says.
func TestJSONMatchesSchemas(t *testing.T) {
	run := schemaRepo(t)
	c := jsonschema.NewCompiler()
	schemaDir, err := filepath.Abs(filepath.Join("..", "..", "..", "docs", "schema"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema string
		args   []string
		// nonEmpty names the lists the repository must fill, so that
		// their items are checked too.
		nonEmpty []string
	}{
		{"log", []string{"log", "--all", "--json"}, []string{"snapshots"}},
		{"log", []string{"log", "--json", "--label", "nothing-has-this"}, nil},
		{"show", []string{"show", "--json", shortID}, nil},
		{"show", []string{"show", "--json", "d"}, nil},
		{"diff", []string{"diff", "--json", "d~1", "d"}, []string{"messages", "members", "files"}},
		{"diff", []string{"diff", "--json", shortID}, []string{"messages"}},
		{"sessions", []string{"sessions", "--json"}, []string{"sessions"}},
		{"usage", []string{"usage", "--json"}, []string{"rows"}},
		{"usage", []string{"usage", "--json", "--weekly", "--by", "model"}, []string{"rows"}},
		{"usage", []string{"usage", "--json", "--session", "--by", "branch", "--since", "2026-02-01"}, []string{"rows"}},
		{"usage", []string{"usage", "--json", "--until", "2000-01-01"}, nil},
		{"stats", []string{"stats", "--json"}, nil},
		{"stats", []string{"stats", "--json", "d"}, nil},
		{"stats", []string{"stats", "--json", "019e1695"}, nil},
		{"trace", []string{"trace", "--json", toolHeavyID}, []string{"timeline"}},
		{"trace", []string{"trace", "--json", "d"}, nil},
		{"checkpoint-list", []string{"checkpoint", "--list", "--json"}, []string{"checkpoints"}},
		{"checkpoint-list", []string{"checkpoint", "--list", "--json", toolHeavyID}, nil},
		{"scan", []string{"scan", "--json"}, []string{"findings"}},
		{"scan", []string{"scan", "--json", "d"}, nil},
		{"search", []string{"search", "--json", "phoenix"}, []string{"hits", "sessions"}},
		{"search", []string{"search", "--json", "-l", "phoenix"}, []string{"sessions"}},
		{"search", []string{"search", "--json", "nothing-has-this-zq"}, nil},
		{"doctor", []string{"doctor", "--json"}, []string{"agents"}},
		{"checkpoint", []string{"checkpoint", "--json", "blue", "d~1"}, nil},
		{"pr", []string{"pr", "--json", "HEAD~1..HEAD"}, []string{"commits", "sessions"}},
		{"blame", []string{"blame", "--json", "notes.md"}, []string{"lines", "edits", "by_model"}},
		{"stats-lines", []string{"stats", "--json", "--lines", "HEAD~2..HEAD"}, []string{"sessions", "files", "by_model"}},
		{"checkpoint", []string{"checkpoint", "--json", "--delete", "d/blue"}, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			sch, err := c.Compile(filepath.Join(schemaDir, tc.schema+".schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			out := run(tc.args...)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if err := sch.Validate(v); err != nil {
				t.Fatalf("%s does not match %s.schema.json: %v", strings.Join(tc.args, " "), tc.schema, err)
			}
			var top map[string]any
			if err := json.Unmarshal(out, &top); err != nil {
				t.Fatal(err)
			}
			for _, k := range tc.nonEmpty {
				if l, _ := top[k].([]any); len(l) == 0 {
					t.Errorf("%s is empty: the test checks none of its items", k)
				}
			}
		})
	}
}
