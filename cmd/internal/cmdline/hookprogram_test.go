package cmdline

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
)

// hookWorld is a repository and a Claude Code transcript outside it, and
// the environment hook calls run with: a HOME of its own, dates fixed so
// that two runs of the same calls write the same commits.
type hookWorld struct {
	t          *testing.T
	root, repo string
	transcript string
	env        []string
}

func newHookWorld(t *testing.T) *hookWorld {
	root := t.TempDir()
	w := &hookWorld{t: t, root: root, repo: filepath.Join(root, "repo"), transcript: filepath.Join(root, "t.jsonl"),
		env: append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".config"),
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_DATE=@1780000000 +0000", "GIT_AUTHOR_DATE=@1780000000 +0000", "GIT_SNAP_DIR=", "GIT_SNAP_HOOK_LATE=")}
	must(t, os.MkdirAll(w.repo, 0o755))
	w.exec(nil, "git", "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(w.repo, "app.go"), []byte("package app\n"), 0o644))
	w.exec(nil, "git", "add", "app.go")
	w.exec(nil, "git", "commit", "-q", "-m", "start")
	return w
}

// exec runs a program in the repository with stdin; it must succeed and
// print nothing when it is a hook call.
func (w *hookWorld) exec(stdin []byte, name string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = w.repo, w.env
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// claudeLines are a Claude Code transcript's first n records: prompts
// and answers, the third asking for a shell command.
func claudeLines(session string, n int) []byte {
	var b strings.Builder
	for i := range n {
		rec := map[string]any{"type": "user", "uuid": "u" + string(rune('a'+i)), "sessionId": session,
			"timestamp": "2026-03-02T10:00:0" + string(rune('0'+i)) + "Z", "message": map[string]any{"role": "user", "content": "prompt " + string(rune('a'+i))}}
		if i%2 == 1 {
			rec["type"] = "assistant"
			rec["message"] = map[string]any{"id": "msg_" + string(rune('a'+i)), "role": "assistant", "model": "claude-sonnet-4",
				"content": []any{map[string]any{"type": "text", "text": "answer"}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 4}}
		}
		line, _ := json.Marshal(rec)
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// calls makes the same hook calls with the program hook (git-snap's
// command line before the agent's name included): a prompt, a shell
// tool after the transcript grew by two records and app.go changed, a
// commit marked by git's post-commit. It returns the session refs and
// their commits, and hook.log's lines without their times.
func (w *hookWorld) calls(hook ...string) (refs, log string) {
	w.t.Helper()
	const session = "s-same"
	payload := func(event, tool string) []byte {
		p, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": w.transcript, "cwd": w.repo, "hook_event_name": event, "tool_name": tool})
		return p
	}
	run := func(stdin []byte, args ...string) {
		w.t.Helper()
		if out := w.exec(stdin, hook[0], append(hook[1:], args...)...); out != "" {
			w.t.Fatalf("%s printed %q", hook, out)
		}
	}
	must(w.t, os.WriteFile(w.transcript, claudeLines(session, 3), 0o644))
	run(payload("UserPromptSubmit", ""), "claude-code")
	must(w.t, os.WriteFile(w.transcript, claudeLines(session, 5), 0o644))
	must(w.t, os.WriteFile(filepath.Join(w.repo, "app.go"), []byte("package app\n\nfunc A() {}\n"), 0o644))
	run(payload("PostToolUse", "Bash"), "claude-code")
	w.exec(nil, "git", "commit", "-q", "-a", "-m", "A")
	run(nil, "git", "post-commit")
	refs = w.exec(nil, "git", "for-each-ref", "--format=%(refname) %(objectname) %(subject)", "refs/snap/")
	data, err := os.ReadFile(filepath.Join(w.repo, ".git", "snap", "hook.log"))
	must(w.t, err)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)[1:] // after the time of the call
		if len(f) == 5 && f[0] == "call" {
			f = append(f[:3], f[4]) // less its latency
		}
		log += strings.Join(f, " ") + "\n"
	}
	return refs, log
}

// TestHookProgramRecordsAsGitSnapHook: git-snap-hook and git snap hook,
// given the same calls on the same repository, record the same
// snapshots, commit for commit, and log the same calls.
func TestHookProgramRecordsAsGitSnapHook(t *testing.T) {
	bin := buildBinary(t)
	hookBin := filepath.Join(filepath.Dir(bin), agent.HookProgram)
	w := newHookWorld(t)
	pristine := filepath.Join(w.root, "pristine")
	copyTree := func(from, to string) {
		if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
			t.Fatalf("cp -a %s %s: %v %s", from, to, err, out)
		}
	}
	copyTree(w.repo, pristine)
	refs, log := w.calls(bin, "hook")
	if strings.Count(refs, "\n") != 1 || strings.Count(log, "\n") != 3 || strings.Contains(log, "failed") {
		t.Fatalf("git snap hook recorded:\n%s\nand logged:\n%s", refs, log)
	}
	must(t, os.RemoveAll(w.repo))
	copyTree(pristine, w.repo)
	hookRefs, hookLog := w.calls(hookBin)
	if hookRefs != refs || hookLog != log {
		t.Errorf("git-snap-hook recorded:\n%s\nand logged:\n%s\ngit snap hook:\n%s\nand:\n%s", hookRefs, hookLog, refs, log)
	}
}

// TestInstallWritesHookProgramBeside: install writes git-snap-hook into
// personal settings when it is beside the git-snap that runs and says
// git-snap's version, else git-snap hook; installing with the other
// git-snap moves each entry (Claude Code's, Cursor's flat ones, Codex's
// notify, git's post-commit) from one form to the other, and the
// command install wrote records when an agent runs it. uninstall removes
// either form; doctor runs the hook program and says when it is of
// another version.
func TestInstallWritesHookProgramBeside(t *testing.T) {
	bin := buildBinary(t)
	w := newHookWorld(t)
	hookBin := filepath.Join(filepath.Dir(bin), agent.HookProgram)
	alone := filepath.Join(w.root, "alone", "git-snap") // a git-snap with no hook program beside it
	stale := filepath.Join(w.root, "stale", "git-snap") // one beside a hook program of another version
	for _, p := range []string{alone, stale} {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		w.exec(nil, "cp", bin, p)
	}
	must(t, os.WriteFile(filepath.Join(filepath.Dir(stale), agent.HookProgram), []byte("#!/bin/sh\necho 'git-snap-hook version v0.0.1'\n"), 0o755))
	settings := filepath.Join(w.repo, ".claude", "settings.local.json")
	cursor := filepath.Join(w.root, ".cursor", "hooks.json")
	codex := filepath.Join(w.root, ".codex", "config.toml")
	postCommit := filepath.Join(w.repo, ".git", "hooks", "post-commit")
	installed := func(gitSnap, hook string) {
		t.Helper()
		for _, args := range [][]string{{"install", "claude-code"}, {"install", "cursor", "--user"}, {"install", "codex", "--user"}, {"install", "git"}} {
			w.exec(nil, gitSnap, args...)
		}
		for file, name := range map[string]string{settings: "claude-code", cursor: "cursor"} {
			cmds, err := agent.HookCommands(file, name)
			if err != nil || len(cmds) == 0 {
				t.Fatalf("after %s install, %s: %v %v", gitSnap, file, cmds, err)
			}
			for ev, cs := range cmds {
				if want := agent.HookCommand(hook, name); len(cs) != 1 || cs[0] != want {
					t.Errorf("after %s install, %s runs %q on %s, want %q", gitSnap, file, cs, ev, want)
				}
			}
		}
		if cmd, _ := capture.GitHookCommand(filepath.Dir(postCommit)); cmd != agent.HookCommand(hook, "git") {
			t.Errorf("after %s install, git's post-commit runs %q, want %q", gitSnap, cmd, agent.HookCommand(hook, "git"))
		}
		if data, _ := os.ReadFile(codex); !strings.HasPrefix(string(data), agent.NotifyLine(hook)+"\n") {
			t.Errorf("after %s install, %s holds:\n%s\nwant %s", gitSnap, codex, data, agent.NotifyLine(hook))
		}
	}
	installed(bin, hookBin)
	if out := w.exec(nil, bin, "doctor", "claude-code"); !strings.Contains(out, `ok   "`+hookBin+` claude-code" runs `+hookBin) {
		t.Errorf("doctor, with the hook program installed:\n%s", out)
	}

	// The command as installed records, run as the agent runs it.
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(settings)
	must(t, err)
	must(t, json.Unmarshal(data, &hooks))
	must(t, os.WriteFile(w.transcript, claudeLines("s-installed", 2), 0o644))
	payload, _ := json.Marshal(map[string]any{"session_id": "s-installed", "transcript_path": w.transcript, "cwd": w.repo, "hook_event_name": "Stop"})
	w.exec(payload, "sh", "-c", hooks.Hooks["Stop"][0].Hooks[0].Command)
	if out := w.exec(nil, bin, "log", "--oneline", "s-installed"); !strings.Contains(out, "s-installed#1") {
		t.Errorf("the installed hook command recorded no snapshot: %s", out)
	}

	installed(alone, alone)
	out := w.exec(nil, stale, "install", "claude-code")
	if !strings.Contains(out, "note: "+filepath.Join(filepath.Dir(stale), agent.HookProgram)+" is not used") {
		t.Errorf("install beside a hook program of another version says:\n%s", out)
	}
	installed(stale, stale)
	installed(bin, hookBin)

	// A hook program of another version in the settings: doctor says so.
	data, err = os.ReadFile(settings)
	must(t, err)
	staleHook := filepath.Join(filepath.Dir(stale), agent.HookProgram)
	must(t, os.WriteFile(settings, []byte(strings.ReplaceAll(string(data), hookBin, staleHook)), 0o644))
	if out := w.exec(nil, bin, "doctor", "claude-code"); !strings.Contains(out, `which says "git-snap-hook version v0.0.1"`) {
		t.Errorf("doctor, with a hook program of another version:\n%s", out)
	}
	must(t, os.WriteFile(settings, data, 0o644))

	for _, args := range [][]string{{"uninstall", "claude-code"}, {"uninstall", "cursor", "--user"}, {"uninstall", "codex", "--user"}, {"uninstall", "git"}} {
		w.exec(nil, bin, args...)
	}
	for _, file := range []string{settings, cursor, codex, postCommit} {
		if data, err := os.ReadFile(file); err == nil && strings.Contains(string(data), "git-snap") {
			t.Errorf("after uninstall, %s holds:\n%s", file, data)
		}
	}
}

// TestInstallRefusesNpxCache: a git-snap run by npx, from its cache,
// writes no hook command naming itself there, which npm may clear: it
// says how to install for good, exit 2, nothing written. Settings a team
// commits name git-snap as PATH finds it, and are written.
func TestInstallRefusesNpxCache(t *testing.T) {
	bin := buildBinary(t)
	w := newHookWorld(t)
	cached := filepath.Join(w.root, ".npm", "_npx", "3b1f2c", "node_modules", "@git-snap", "linux-x64", "bin")
	must(t, os.MkdirAll(cached, 0o755))
	for _, p := range []string{bin, filepath.Join(filepath.Dir(bin), agent.HookProgram)} {
		w.exec(nil, "cp", p, cached)
	}
	npx := filepath.Join(cached, "git-snap")
	for _, args := range [][]string{{"install", "claude-code"}, {"install", "git"}, {"install", "claude-code", "--mcp"}} {
		cmd := exec.Command(npx, args...)
		cmd.Dir, cmd.Env = w.repo, w.env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "npx's cache") || !strings.Contains(string(out), "npm install -g git-snap") {
			t.Errorf("git-snap %s from npx's cache: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, p := range []string{filepath.Join(w.repo, ".claude"), filepath.Join(w.root, ".claude.json"), filepath.Join(w.repo, ".git", "hooks", "post-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	w.exec(nil, npx, "install", "claude-code", "--project")
	if data, _ := os.ReadFile(filepath.Join(w.repo, ".claude", "settings.json")); !strings.Contains(string(data), `"git-snap hook claude-code"`) {
		t.Errorf("--project from npx's cache wrote:\n%s", data)
	}
}
