package cmdline

import (
	"bytes"
	"flag"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var updateReference = flag.Bool("update", false, "rewrite docs/commands.md from the command definitions")

// TestCommandReferenceCurrent fails when docs/commands.md no longer says
// what --help says; with -update (what go generate ./cmd/git-snap runs)
// it writes the file instead.
func TestCommandReferenceCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "commands.md")
	want := commandReference((&env{}).newApp())
	if *updateReference {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("docs/commands.md differs from what the command definitions give: regenerate it with go generate ./cmd/git-snap")
	}
}

// TestReferenceShowsHelpAsWritten renders every paragraph of help text
// the reference holds, as GitHub would, and checks that it reads as the
// help does: no emphasis, link, HTML or strike-through made of its
// punctuation, no heading or list made of a line's start.
func TestReferenceShowsHelpAsWritten(t *testing.T) {
	app := (&env{}).newApp()
	texts := []string{app.Usage, exitText}
	for _, v := range envVars() {
		texts = append(texts, v.text)
	}
	addFlags := func(flags []flagDoc) {
		for _, f := range flags {
			texts = append(texts, f.usage)
		}
	}
	addFlags(flagDocs(app.Flags))
	for _, c := range docCommands(app) {
		texts = append(texts, c.Usage)
		desc, _ := splitExamples(c.Description)
		for _, b := range helpBlocks(desc) {
			if !b.verbatim {
				texts = append(texts, b.text)
			}
		}
		addFlags(flagDocs(c.Flags))
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, text := range texts {
		var out bytes.Buffer
		if err := md.Convert([]byte(markdownParagraph(text)), &out); err != nil {
			t.Fatal(err)
		}
		inner, ok := strings.CutPrefix(out.String(), "<p>")
		inner, ok2 := strings.CutSuffix(inner, "</p>\n")
		if !ok || !ok2 || html.UnescapeString(inner) != text {
			t.Errorf("help text\n\t%q\nrenders as\n\t%q", text, out.String())
		}
	}
}
