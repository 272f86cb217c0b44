package cmdline

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/internal/manpage"
)

const manual = "Git Snap Manual"

// manPages are git-snap(1) and git-snap-<command>(1), made from the
// same definitions as --help so that the two never disagree: file name
// → roff.
func manPages(app *cli.App) (map[string][]byte, error) {
	pages := map[string][]byte{}
	var see []string
	for _, c := range docCommands(app) {
		see = append(see, "git-snap-"+c.Name)
	}
	add := func(p manpage.Page) error {
		var b bytes.Buffer
		if err := manpage.Write(&b, p); err != nil {
			return err
		}
		pages[p.Name+".1"] = b.Bytes()
		return nil
	}
	if err := add(appPage(app, see)); err != nil {
		return nil, err
	}
	for _, c := range docCommands(app) {
		if err := add(commandPage(c)); err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// docCommands are the commands a person runs: not hidden, not help.
func docCommands(app *cli.App) []*cli.Command {
	var out []*cli.Command
	for _, c := range app.Commands {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c)
		}
	}
	return out
}

func appPage(app *cli.App, see []string) manpage.Page {
	var cmds []manpage.Item
	for _, c := range docCommands(app) {
		cmds = append(cmds, manpage.Item{
			Tag:  manpage.Bold("git snap "+c.Name) + " " + manpage.Escape(c.ArgsUsage),
			Text: c.Usage + "; see " + "git-snap-" + c.Name + "(1).",
		})
	}
	refs := make([]string, len(see))
	for i, s := range see {
		refs[i] = manpage.Bold(s) + "(1)"
	}
	return manpage.Page{
		Name: "git-snap", Section: 1, Manual: manual, Summary: app.Usage,
		Synopsis: []string{app.UsageText},
		Sections: []manpage.Section{
			{Title: "Description", Text: app.Description + "\n\n" + helpText},
			{Title: "Options", Items: flagItems(app.Flags)},
			{Title: "Commands", Items: cmds},
			{Title: "Exit status", Text: exitText},
			{Title: "Environment", Items: envItems()},
			{Title: "See also", Roff: manpage.Bold("git") + "(1), " + strings.Join(refs, ", ")},
		},
	}
}

const helpText = `git snap help COMMAND and git snap COMMAND --help print a command's help;
git help snap and git snap --help show this page.`

const exitText = `0 done; 1 failed; 2 bad usage or bad input, and nothing was written; 130 interrupted.`

// envVar is a variable git-snap reads, as the manual and the command
// reference list it.
type envVar struct {
	names []string
	text  string
}

// envVars are made when a page is, so that starting the binary costs
// nothing for them.
func envVars() []envVar {
	return []envVar{
		{[]string{"GIT_SNAP_DIR"}, "the store, as --store gives it."},
		{[]string{"GIT_SNAP_SESSION"}, "the default session, over session: in the config."},
		{[]string{"GIT_PAGER", "PAGER"}, "the pager of reading commands on a terminal."},
		{[]string{"NO_COLOR"}, "no colour unless --color=always."},
		{[]string{"XDG_CONFIG_HOME"}, "where the user's config is (~/.config when unset)."},
	}
}

func envItems() []manpage.Item {
	var out []manpage.Item
	for _, v := range envVars() {
		tags := make([]string, len(v.names))
		for i, n := range v.names {
			tags[i] = manpage.Bold(n)
		}
		out = append(out, manpage.Item{Tag: strings.Join(tags, ", "), Text: v.text})
	}
	return out
}

func commandPage(c *cli.Command) manpage.Page {
	desc, examples := splitExamples(c.Description)
	sections := []manpage.Section{{Title: "Description", Text: or(desc, c.Usage)}}
	if len(c.Flags) > 0 {
		sections = append(sections, manpage.Section{Title: "Options", Items: flagItems(c.Flags)})
	}
	if examples != "" {
		sections = append(sections, manpage.Section{Title: "Examples", Text: examples})
	}
	sections = append(sections, manpage.Section{Title: "See also", Roff: manpage.Bold("git-snap") + "(1), " + manpage.Bold("git") + "(1)"})
	return manpage.Page{
		Name: "git-snap-" + c.Name, Section: 1, Manual: manual, Summary: c.Usage,
		Synopsis: []string{strings.TrimSpace("git snap " + c.Name + " [options] " + c.ArgsUsage)},
		Sections: sections,
	}
}

// splitExamples parts a command's description from the examples at its
// end, under a line "Example:" or "Examples:".
func splitExamples(description string) (text, examples string) {
	text, examples, _ = strings.Cut(description, "\nExample")
	if examples != "" {
		_, examples, _ = strings.Cut(examples, "\n") // drop "s:" or ":"
	}
	return text, examples
}

// flagDoc is a flag as --help lists it: its names with their dashes,
// longest first, the value's placeholder, and the usage with a default
// worth saying.
type flagDoc struct {
	names       []string
	placeholder string
	usage       string
}

// flagDocs are the visible flags, for the manual and the command reference.
func flagDocs(flags []cli.Flag) []flagDoc {
	var out []flagDoc
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		d, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		placeholder, usage := unquoteUsage(d.GetUsage())
		if placeholder == "" && d.TakesValue() {
			placeholder = "value"
		}
		names := append([]string{}, f.Names()...)
		sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
		for i, n := range names {
			if len(n) == 1 {
				names[i] = "-" + n
			} else {
				names[i] = "--" + n
			}
		}
		if def := d.GetDefaultText(); d.TakesValue() && def != "" && def != "0" && def != `""` {
			usage += fmt.Sprintf(" (default: %s)", strings.Trim(def, `"`))
		}
		out = append(out, flagDoc{names: names, placeholder: placeholder, usage: usage})
	}
	return out
}

// flagItems are the flags as the manual's tagged list.
func flagItems(flags []cli.Flag) []manpage.Item {
	var out []manpage.Item
	for _, f := range flagDocs(flags) {
		tags := make([]string, len(f.names))
		for i, n := range f.names {
			tags[i] = manpage.Bold(n)
			if f.placeholder != "" {
				tags[i] += " " + manpage.Italic(f.placeholder)
			}
		}
		out = append(out, manpage.Item{Tag: strings.Join(tags, ", "), Text: f.usage})
	}
	return out
}

// unquoteUsage splits a flag's usage as --help does: the `word` in
// backquotes names the value.
func unquoteUsage(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}
