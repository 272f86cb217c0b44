package cmdline

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/mcpserver"
	"github.com/git-snap/git-snap/viewer"
)

// The defaults git-snap's flags show are the ones the libraries it does
// not link take.
func TestApartDefaultsAreTheLibraries(t *testing.T) {
	if viewPort != viewer.DefaultPort {
		t.Errorf("view --port defaults to %d, the viewer to %d", viewPort, viewer.DefaultPort)
	}
	if mcpBudget != mcpserver.DefaultBudget {
		t.Errorf("mcp --budget defaults to %d, the server to %d", mcpBudget, mcpserver.DefaultBudget)
	}
}

// apartCalls are calls of git-snap that need a program apart, with the
// program each needs.
var apartCalls = []struct {
	args []string
	prog programs.Program
}{
	{[]string{"view", "--port", "0"}, programs.View},
	{[]string{"mcp"}, programs.MCP},
	{[]string{"log", "--jq", ".snapshots[].seq"}, programs.JQ},
	{[]string{"sessions", "--json", "name", "--jq", ".sessions[].name"}, programs.JQ},
	{[]string{"export", "--format", "otel", "alpha"}, programs.HTTP},
	{[]string{"export", "alpha", "--format=otel", "--endpoint", "http://127.0.0.1:1"}, programs.HTTP},
	{[]string{"replay", "--serve", "alpha"}, programs.HTTP},
	{[]string{"prices", "update"}, programs.HTTP},
	{[]string{"prices", "update", "https://127.0.0.1:1/prices.json"}, programs.HTTP},
}

// A git-snap installed without the programs apart says, for each call
// that needs one, which program and how to install it, exit status 2,
// nothing written; its other commands, and the help of those calls,
// work without them. Beside it or on PATH, the program runs the call:
// the same arguments, the global ones included, reach it.
func TestProgramsApartMissingAndOnPath(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	alone := filepath.Join(root, "alone", "git-snap")
	must(t, os.MkdirAll(filepath.Dir(alone), 0o755))
	data, err := os.ReadFile(bin)
	must(t, err)
	must(t, os.WriteFile(alone, data, 0o755))
	repo := filepath.Join(root, "repo")
	must(t, os.MkdirAll(repo, 0o755))
	gitDir := filepath.Dir(mustLookPath(t, "git"))
	env := append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_SNAP_DIR=", "GIT_SNAP_SESSION=", "PATH="+gitDir)
	call := func(path string, dir string, stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(path, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s %s: %v", path, strings.Join(args, " "), err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	if code, _, errOut := call("git", repo, "", "init", "-q"); code != 0 {
		t.Fatal(errOut)
	}
	doc := `{"agent": "claude-code", "messages": [{"role": "user", "content": "hello"}]}`
	if code, _, errOut := call(alone, repo, doc, "save", "-s", "alpha"); code != 0 {
		t.Fatalf("save without the programs apart: %s", errOut)
	}
	if code, out, errOut := call(alone, repo, "", "log", "--json", "alpha"); code != 0 || !strings.Contains(out, `"seq": 1`) {
		t.Fatalf("log --json without the programs apart: %d %s %s", code, out, errOut)
	}
	refs := func() string {
		_, out, _ := call("git", repo, "", "for-each-ref")
		return out
	}
	before := refs()
	for _, c := range apartCalls {
		code, out, errOut := call(alone, repo, "", c.args...)
		want := "runs in the program " + string(c.prog) + ", which is not installed (not beside " + filepath.Dir(alone) + " nor on PATH)"
		if code != 2 || out != "" || !strings.Contains(errOut, want) ||
			!strings.Contains(errOut, "hint: install it beside git-snap") || !strings.Contains(errOut, "cmd/"+string(c.prog)+"@") {
			t.Errorf("git-snap %s without %s: exit %d, stdout %q, stderr:\n%s", strings.Join(c.args, " "), c.prog, code, out, errOut)
		}
		if code, out, _ := call(alone, repo, "", c.args[0], "--help"); code != 0 || !strings.Contains(out, "git snap "+c.args[0]) {
			t.Errorf("git-snap %s --help without %s: exit %d\n%s", c.args[0], c.prog, code, out)
		}
	}
	// install --mcp would give the agent a server that cannot start.
	code, out, errOut := call(alone, repo, "", "install", "claude-code", "--mcp", "--project")
	if _, err := os.Stat(filepath.Join(repo, ".mcp.json")); code != 2 || out != "" || !strings.Contains(errOut, "git snap mcp, which the agent is to run, runs in the program git-snap-mcp") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install --mcp without git-snap-mcp: exit %d, .mcp.json: %v\n%s", code, err, errOut)
	}
	if after := refs(); after != before {
		t.Errorf("the refused calls moved refs:\n%s\nto\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(root, ".config", "git-snap", "prices.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("prices update without git-snap-http wrote the price list: %v", err)
	}

	// On PATH, from another folder: -C and the command's arguments reach
	// the program as given.
	env[len(env)-1] = "PATH=" + gitDir + string(os.PathListSeparator) + filepath.Dir(bin)
	code, out, errOut = call(alone, root, "", "-C", "repo", "log", "alpha", "--jq", ".snapshots[] | .session + \" \" + (.seq|tostring)")
	if code != 0 || out != "alpha 1\n" || errOut != "" {
		t.Errorf("log --jq with git-snap-jq on PATH: exit %d, %q\n%s", code, out, errOut)
	}
	// One of another version says so, and runs the call.
	env = append(env, programs.CallerVersion+"=v0.0.1")
	code, out, errOut = call(filepath.Join(filepath.Dir(bin), string(programs.JQ)), repo, "", "log", "alpha", "--jq", ".snapshots[0].seq")
	if code != 0 || out != "1\n" || !strings.Contains(errOut, "git-snap: warning: git-snap-jq is version ") || !strings.Contains(errOut, ", the git-snap that ran it v0.0.1: install every program again") {
		t.Errorf("git-snap-jq run by another version: exit %d, %q\n%s", code, out, errOut)
	}
	env = env[:len(env)-1]
	code, out, errOut = call(alone, root, "", "-C", "repo", "export", "--format", "otel", "alpha")
	if code != 0 || !strings.Contains(out, `"resourceSpans"`) {
		t.Errorf("export --format otel with git-snap-http on PATH: exit %d, %.200s\n%s", code, out, errOut)
	}
	// A bad call is the program's to refuse, as git-snap did.
	code, _, errOut = call(alone, repo, "", "log", "--jq", ".[")
	if code != 2 || !strings.Contains(errOut, `--jq ".[":`) {
		t.Errorf("log --jq with a broken expression: exit %d\n%s", code, errOut)
	}
	code, _, errOut = call(alone, repo, "", "export", "--format", "otel", "--endpoint", "ftp://x", "alpha")
	if code != 2 || !strings.Contains(errOut, "--endpoint: ") {
		t.Errorf("export --format otel --endpoint ftp://x: exit %d\n%s", code, errOut)
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s on PATH", name)
	}
	return p
}

// The README installs every program with one command each way: the
// pattern cmd/git-snap... is every program's folder, and its table names
// each program apart.
func TestReadmeInstallsEveryProgram(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	must(t, err)
	readme := string(b)
	for _, line := range []string{
		"go install -tags urfave_cli_no_docs github.com/git-snap/git-snap/cmd/git-snap...@latest\n",
		"go build -tags urfave_cli_no_docs -o ~/bin/ ./cmd/git-snap...\n",
	} {
		if !strings.Contains(readme, line) {
			t.Errorf("README's Install has no %q", line)
		}
	}
	for _, p := range append([]programs.Program{"git-snap", "git-snap-hook"}, programs.All...) {
		out, err := exec.Command("go", "list", "-f", "{{.Name}}", "../../"+string(p)).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "main" {
			t.Errorf("cmd/%s is not a program: %v %s", p, err, out)
		}
		if !strings.Contains(readme, "| `"+string(p)) && p != "git-snap" {
			t.Errorf("README's Install does not say what %s runs", p)
		}
	}
}
