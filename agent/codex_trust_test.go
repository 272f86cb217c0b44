package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexSetup installs git-snap's hooks in a project's .codex/hooks.json
// and gives the adapter with its home under the test's folder.
func codexSetup(t *testing.T, config string) (Codex, string, string) {
	t.Helper()
	dir := t.TempDir()
	c := Codex{Home: filepath.Join(dir, "home", ".codex")}
	work := filepath.Join(dir, "repo")
	hooks := filepath.Join(work, ".codex", "hooks.json")
	if _, err := InstallFor(c, hooks, "git-snap hook codex"); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.MkdirAll(c.Home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.UserConfig(), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return c, hooks, work
}

// The hashes Codex 0.169.0 itself gives git-snap's hooks (codex
// app-server, hooks/list, currentHash), for the handlers install writes.
func TestCodexHookHashIsCodexs(t *testing.T) {
	_, hooks, _ := codexSetup(t, "")
	got, err := CodexHooks(hooks)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		hooks + ":post_tool_use:0:0": "sha256:23afb3f2317910c08e5dfbd82c9daf35f2301358ef2d5777ca5ae9d6db4a8ae7",
		hooks + ":session_end:0:0":   "sha256:36576d22636e0a7142e88c66e446de5380ea3b6d954c17f138d9040f74a875e3",
		hooks + ":stop:0:0":          "sha256:b5d0772e8787cafd74e4039507957d0f2c5f869dd77db43e1953690a4746bd01",
		hooks + ":session_start:0:0": "sha256:d76bc799e5a9b471f700eab22293f81cb7a28ffc720d53028264734d48100455",
	}
	if len(got) != len(Codex{}.Events()) {
		t.Errorf("%d hooks, want one per event: %v", len(got), got)
	}
	for _, h := range got {
		if w, ok := want[h.Key]; ok && h.Hash != w {
			t.Errorf("%s: %s, Codex says %s", h.Key, h.Hash, w)
		}
		delete(want, h.Key)
	}
	if len(want) > 0 {
		t.Errorf("no hook for %v", want)
	}
}

func TestCodexTrustEditsOnlyItsOwnLines(t *testing.T) {
	const config = "# mine\nmodel = \"gpt-5.5\" # the model\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n"
	c, hooks, work := codexSetup(t, config)
	if checks := c.Needs(hooks, work); checks[1].Status != Fail || checks[2].Status != Fail || !strings.Contains(checks[2].Fix, "git snap install codex trusts them") {
		t.Fatalf("before trust: %+v", checks)
	}
	changes, err := c.Trust(hooks, work)
	if err != nil || len(changes) != 2 || !changes[0].Done || !changes[1].Done {
		t.Fatalf("%+v, %v", changes, err)
	}
	data, _ := os.ReadFile(c.UserConfig())
	if !strings.HasPrefix(string(data), config) {
		t.Errorf("the user's lines changed:\n%s", data)
	}
	if !strings.Contains(string(data), "\n[projects."+tomlQuote(work)+"]\ntrust_level = \"trusted\"\n") {
		t.Errorf("no project trust:\n%s", data)
	}
	for _, ch := range c.Needs(hooks, work) {
		if ch.Status != OK {
			t.Errorf("after trust: %+v", ch)
		}
	}
	if again, err := c.Trust(hooks, work); err != nil || len(again) != 0 {
		t.Errorf("trusting again: %+v, %v", again, err)
	}

	// A changed hook is no longer trusted; trusting it again replaces the
	// hash on its line.
	if _, err := InstallFor(c, hooks, "/opt/bin/git-snap hook codex"); err != nil {
		t.Fatal(err)
	}
	if ch := c.Needs(hooks, work)[2]; ch.Status != Fail || !strings.Contains(ch.Detail, "7 of git-snap's 7 hooks are not trusted") {
		t.Errorf("a changed hook: %+v", ch)
	}
	if _, err := c.Trust(hooks, work); err != nil {
		t.Fatal(err)
	}
	data2, _ := os.ReadFile(c.UserConfig())
	if strings.Count(string(data2), "trusted_hash") != 7 || len(data2) != len(data) {
		t.Errorf("the hashes were not replaced in place:\n%s", data2)
	}

	// Turned off in /hooks: said so.
	key := hooks + ":stop:0:0"
	off := strings.Replace(string(data2), "[hooks.state."+tomlQuote(key)+"]\n", "[hooks.state."+tomlQuote(key)+"]\nenabled = false\n", 1)
	if err := os.WriteFile(c.UserConfig(), []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch := c.Needs(hooks, work)[2]; ch.Status != Fail || !strings.Contains(ch.Detail, "turned off") {
		t.Errorf("a hook turned off: %+v", ch)
	}

	// Untrust removes git-snap's hook trust and keeps the rest.
	if err := os.WriteFile(c.UserConfig(), data2, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Untrust(hooks); n != 7 || err != nil {
		t.Fatalf("untrust: %d, %v", n, err)
	}
	left, _ := os.ReadFile(c.UserConfig())
	if strings.Contains(string(left), "hooks.state") || !strings.HasPrefix(string(left), config) || !strings.Contains(string(left), work) {
		t.Errorf("after untrust:\n%s", left)
	}
}

// A config.toml that spells the projects table inline cannot take a new
// [projects."…"] table: nothing is written, and the line to add is given.
func TestCodexTrustRefusesAnEditThatWouldNotRead(t *testing.T) {
	const config = "projects = { \"/elsewhere\" = { trust_level = \"trusted\" } }\n"
	c, hooks, work := codexSetup(t, config)
	changes, err := c.Trust(hooks, work)
	if err != nil || len(changes) != 2 {
		t.Fatalf("%+v, %v", changes, err)
	}
	if changes[0].Done || !strings.Contains(changes[0].Manual, "trust_level = \"trusted\"") {
		t.Errorf("project trust: %+v", changes[0])
	}
	if !changes[1].Done {
		t.Errorf("hook trust: %+v", changes[1])
	}
	data, _ := os.ReadFile(c.UserConfig())
	if !strings.HasPrefix(string(data), config) || strings.Contains(string(data), "[projects.") {
		t.Errorf("config:\n%s", data)
	}
}

func TestTomlHeader(t *testing.T) {
	for line, want := range map[string]string{
		`[projects."/a b/c"]`:                 "projects|/a b/c",
		`[ hooks . state . 'x:y:0:0' ]`:       "hooks|state|x:y:0:0",
		`[hooks.state."/p/\"q\".json:s:0:0"]`: `hooks|state|/p/"q".json:s:0:0`,
		`[[profiles]]`:                        "",
		`[bad`:                                "",
	} {
		keys, ok := tomlHeader(line)
		if got := strings.Join(keys, "|"); got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", line, got, ok, want)
		}
	}
}
