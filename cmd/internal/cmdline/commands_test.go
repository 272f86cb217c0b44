package cmdline

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// Each entry of the table builds the command it is named for, so that a
// run that builds only the command it runs runs the one asked.
func TestCommandsTableNamesEachCommand(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		got := c.build(&env{}).Name
		if got != c.name {
			t.Errorf("the table's %q builds %q", c.name, got)
		}
		if seen[c.name] {
			t.Errorf("%q is in the table twice", c.name)
		}
		seen[c.name] = true
	}
}

func TestCommandIn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "-n", "20"}, "log"},
		{[]string{"-C", "log", "show"}, "show"}, // log is -C's value
		{[]string{"-C=dir", "--store", "x", "--no-pager", "--color", "diff", "A", "B"}, "diff"},
		{[]string{"--version"}, "-"},
		{[]string{"-v"}, "-"},
		{[]string{"--version", "--help"}, ""},
		{nil, ""},
		{[]string{"--help"}, ""},
		{[]string{"help", "log"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"__complete", "lo"}, ""},
		{[]string{"install", "man"}, ""},
		{[]string{"lgo"}, ""}, // unknown: every command, for the suggestion
		{[]string{"--", "log"}, ""},
	} {
		if got := commandIn(tc.args); got != tc.want {
			t.Errorf("commandIn(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A command run on its own definition says what it says when every
// command is built: its help, and its errors.
func TestOneCommandBuiltAsAll(t *testing.T) {
	for _, args := range [][]string{
		{"log", "--help"},
		{"show", "--no-such-flag"},
		{"diff", "--stat", "a", "b", "c"},
		{"lgo"},
		{"--version"},
	} {
		var outs [2]string
		for i, only := range []string{commandIn(args), ""} {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, dir: t.TempDir(), getenv: func(string) string { return "" }}
			app := e.newApp(only)
			err := app.RunContext(context.Background(), append([]string{"git-snap"}, reorderArgs(app, args)...))
			if err == nil && e.notFound != "" {
				err = unknownCommand(app, e.notFound)
			}
			code := e.report(err)
			outs[i] = stdout.String() + "\n--\n" + stderr.String() + "\n--\n" + string(rune('0'+code))
		}
		if outs[0] != outs[1] {
			t.Errorf("git-snap %q built alone says\n%s\nand with every command\n%s", args, outs[0], outs[1])
		}
	}
}

// Only the commands that read and print, and --version, run without
// watching Ctrl-C and SIGTERM, and they too watch once they page; every
// command that may write watches from its start (proc.Signals).
func TestWhoWatchesSignals(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	for _, tc := range []struct {
		args     []string
		terminal bool
		want     bool
	}{
		{[]string{"--version"}, false, false},
		{[]string{"log", "-n", "20"}, false, false},
		{[]string{"--no-pager", "show", "s"}, false, false},
		{[]string{"sessions", "--json"}, false, false},
		{[]string{"stats"}, false, false},
		{[]string{"usage", "--daily"}, false, false},
		{[]string{"diff", "a", "b"}, false, false},
		{[]string{"log", "--all"}, true, true}, // paged
		{[]string{"log", "--all", "--no-pager"}, true, false},
		{[]string{"save", "--session", "s", "missing.json"}, false, true},
		{[]string{"checkpoint", "green", "s"}, false, true},
		{[]string{"prune", "--keep-last", "1", "s"}, false, true},
		{[]string{"search", "word"}, false, true}, // writes its index
		{[]string{"import", "--from", "claude-code", "missing"}, false, true},
		{[]string{"--help"}, false, true},
	} {
		watched := false
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, dir: dir, terminal: tc.terminal,
			getenv: func(string) string { return "" },
			lookupenv: func(k string) (string, bool) {
				return map[string]string{"GIT_PAGER": "cat >/dev/null"}[k], k == "GIT_PAGER"
			},
			watch: func() { watched = true }}
		e.run(context.Background(), tc.args)
		if watched != tc.want {
			t.Errorf("%q (terminal %v): watched %v, want %v; stderr %s", tc.args, tc.terminal, watched, tc.want, stderr.String())
		}
	}
}

// withNames keeps every flag as cli and help see it: the names, the
// help line and whether it takes a value, for every flag of every
// command and the global ones; and each flag is one it names.
func TestWithNamesKeepsFlags(t *testing.T) {
	app := (&env{}).newApp("")
	flags := slices.Clone(app.Flags)
	for _, c := range app.Commands {
		flags = append(flags, c.Flags...)
	}
	named := 0
	for _, f := range flags {
		inner := unwrapFlag(f)
		if q, ok := f.(*quietInt); ok {
			inner = q.IntFlag
		}
		if inner != f {
			named++
		}
		if !slices.Equal(f.Names(), inner.Names()) {
			t.Errorf("flag %v: names %v", inner.Names(), f.Names())
		}
		if q, ok := f.(*quietInt); !ok && f.String() != inner.String() {
			t.Errorf("flag %v: help %q, not %q", inner.Names(), f.String(), inner.String())
		} else if ok && q.String() == "" {
			t.Errorf("flag %v: no help line", inner.Names())
		}
		if dg, ok := f.(cli.DocGenerationFlag); !ok || dg.TakesValue() != inner.(cli.DocGenerationFlag).TakesValue() {
			t.Errorf("flag %v: takes a value unlike the flag it wraps", inner.Names())
		}
	}
	if named < len(flags)*9/10 {
		t.Errorf("%d of %d flags have their names found once", named, len(flags))
	}
}
