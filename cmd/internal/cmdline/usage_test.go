package cmdline

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"log", "log", 0}, {"lgo", "log", 1}, {"onelin", "oneline", 1},
		{"nope", "store", 3}, {"shwo", "show", 1}, {"diff", "dif", 1}, {"abc", "", 3}, {"", "ab", 2},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	commands := []string{"init", "save", "log", "show", "diff", "restore", "rollback", "checkpoint", "export", "import", "sessions", "stats", "scan", "trace", "replay", "rewind", "push", "pull", "prune", "drop", "gc", "demo"}
	flags := []string{"all", "a", "max-count", "n", "oneline", "pretty", "format", "reverse", "stat", "patch", "p", "since", "until", "label", "json", "session", "s", "no-pager", "color", "C", "store"}
	for _, tc := range []struct {
		typed      string
		candidates []string
		want       []string
	}{
		{"lgo", commands, []string{"log"}},
		{"shwo", commands, []string{"show"}},
		{"chekpoint", commands, []string{"checkpoint"}},
		{"sesions", commands, []string{"sessions"}},
		{"sta", commands, []string{"stats"}},
		{"frobnicate", commands, nil},
		{"onelin", flags, []string{"oneline"}},
		{"reverce", flags, []string{"reverse"}},
		{"jsn", flags, []string{"json"}},
		{"nope", flags, nil},
		{"x", flags, nil},
	} {
		if got := suggest(tc.typed, tc.candidates); !slices.Equal(got, tc.want) {
			t.Errorf("suggest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestGitFlagsAndCounts(t *testing.T) {
	e := &env{getenv: func(string) string { return "" }}
	app := e.newApp()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"log", "-5"}, []string{"log", "--max-count=5"}},
		{[]string{"log", "-n5", "a"}, []string{"log", "--max-count=5", "--", "a"}},
		{[]string{"log", "-n", "5"}, []string{"log", "-n", "5"}},
		{[]string{"--color", "log"}, []string{"--color=always", "log"}},
		{[]string{"log", "--no-color", "--", "-5"}, []string{"log", "--color=never", "--", "--", "-5"}}, // log -- PATH: the -- stays
		{[]string{"diff", "--no-color", "--", "-5"}, []string{"diff", "--color=never", "--", "-5"}},
		{[]string{"prune", "-n", "--keep-last", "3"}, []string{"prune", "-n", "--keep-last", "3"}},
		{[]string{"prune", "-5"}, []string{"prune", "-5"}},
	} {
		if got := reorderArgs(app, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("reorderArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Install's help gives a new agent its line from what its file registers
// (agent.Info), the way TestANewAgentIsOneFile in package agent registers
// one: its name, then its settings files wrapped under it. Hook's,
// import's and restore's help and the completion list agent.Names, with
// no line per agent to write.
func TestInstallHelpListsANewAgent(t *testing.T) {
	in := agent.Info{Name: "fictitious", Title: "Fictitious CLI",
		Settings: ".fictitious/settings.json (--project, the default) or ~/.fictitious/settings.json (--user)"}
	help := agentSettingsHelp(append(agent.Agents(), in))
	want := "   fictitious   .fictitious/settings.json (--project, the default) or\n" +
		"                ~/.fictitious/settings.json (--user)\n"
	if !strings.HasSuffix(help, want) {
		t.Errorf("install's help ends:\n%s\nwant:\n%s", help, want)
	}
}

// The help of hook, install and uninstall describes every agent git-snap
// knows, not only in the usage line made from agent.Names: a new agent
// without a line of its own fails here.
func TestHelpNamesEveryAgent(t *testing.T) {
	for _, cmd := range []string{"hook", "install", "uninstall"} {
		var out, errOut bytes.Buffer
		if code := Main([]string{cmd, "--help"}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%s --help: exit %d: %s", cmd, code, errOut.String())
		}
		_, desc, ok := strings.Cut(out.String(), "DESCRIPTION:")
		if !ok {
			t.Fatalf("%s --help has no description:\n%s", cmd, out.String())
		}
		for _, name := range agent.Names() {
			if !strings.Contains(desc, name) {
				t.Errorf("%s --help does not describe %s:\n%s", cmd, name, desc)
			}
		}
	}
}
