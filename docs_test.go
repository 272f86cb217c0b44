package gitsnap_test

import (
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// TestDocLinksResolve: every relative link in README.md, CONTRIBUTING.md
// and docs/**/*.md names a file or folder of the repository, and its
// #anchor, in a Markdown file, a heading of that file as GitHub names it.
func TestDocLinksResolve(t *testing.T) {
	docs := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// docs/examples are sessions exported as they were recorded: their
		// links are the recorded project's, not this repository's.
		if d.IsDir() && p == filepath.Join("docs", "examples") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			docs = append(docs, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	for _, doc := range docs {
		for _, dest := range markdownLinks(t, doc) {
			if msg := checkLink(t, doc, dest, anchors); msg != "" {
				t.Errorf("%s: link %q: %s", doc, dest, msg)
			}
		}
	}
}

// checkLink says what is wrong with a link from doc, or "".
func checkLink(t *testing.T, doc, dest string, anchors map[string]map[string]bool) string {
	u, err := url.Parse(dest)
	if err != nil {
		return err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return "" // not a file of this repository
	}
	target := doc
	if u.Path != "" {
		target = path.Join(path.Dir(doc), u.Path)
		if strings.HasPrefix(u.Path, "/") {
			target = strings.TrimPrefix(path.Clean(u.Path), "/")
		}
	}
	if _, err := os.Stat(filepath.FromSlash(target)); err != nil {
		return target + " does not exist"
	}
	if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	if anchors[target] == nil {
		anchors[target] = headingAnchors(t, target)
	}
	if !anchors[target][u.Fragment] {
		return target + " has no heading #" + u.Fragment
	}
	return ""
}

// parseMarkdown reads a Markdown file as GitHub does (CommonMark with its
// extensions).
func parseMarkdown(t *testing.T, file string) (ast.Node, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	return md.Parser().Parse(text.NewReader(src)), src
}

// markdownLinks are the destinations of a file's links and images.
func markdownLinks(t *testing.T, file string) []string {
	root, _ := parseMarkdown(t, file)
	var out []string
	err := ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			out = append(out, string(n.Destination))
		case *ast.Image:
			out = append(out, string(n.Destination))
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headingAnchors are the anchors GitHub gives a file's headings: the
// text lowercased, spaces made hyphens, punctuation but - and _ dropped,
// and -1, -2, … added to a repeated one.
func headingAnchors(t *testing.T, file string) map[string]bool {
	root, src := parseMarkdown(t, file)
	out := map[string]bool{}
	seen := map[string]int{}
	err := ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		a := githubAnchor(inlineText(h, src))
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inlineText is the text a heading shows: code spans and links as their text.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
		default:
			b.WriteString(inlineText(c, src))
		}
	}
	return b.String()
}

func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestGitHubAnchor holds the anchor rule to headings GitHub has named.
func TestGitHubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"replay --serve":              "replay---serve",
		"On-disk format (format 1)":   "on-disk-format-format-1",
		"What each agent gives":       "what-each-agent-gives",
		"Turn 1 · 2026-02-10":         "turn-1--2026-02-10",
		"usage against ccusage":       "usage-against-ccusage",
		"Agents' formats":             "agents-formats",
		"`git snap view` and its_API": "git-snap-view-and-its_api",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("anchor of %q: %q, want %q", heading, got, want)
		}
	}
}

// TestAgentTablesNameThePinnedVersions: the agent tables in README.md and
// docs/agents.md give, for each agent the live suite runs, the version
// internal/liveagents/versions.json pins, so that a new pin cannot leave
// them behind.
func TestAgentTablesNameThePinnedVersions(t *testing.T) {
	data, err := os.ReadFile("internal/liveagents/versions.json")
	if err != nil {
		t.Fatal(err)
	}
	var pins map[string]struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pins); err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile("README.md")
	agents, _ := os.ReadFile("docs/agents.md")
	for name, p := range pins {
		if p.Version == "" {
			t.Fatalf("versions.json pins no version of %s", name)
		}
		if !strings.Contains(string(readme), "| `"+name+"` | "+p.Version+" |") {
			t.Errorf("README.md's agent table does not give %s at %s", name, p.Version)
		}
		row := false
		for _, line := range strings.Split(string(agents), "\n") {
			row = row || strings.HasPrefix(line, "| "+name+" |") && strings.Contains(line, "| "+p.Version+" |")
		}
		if !row {
			t.Errorf("docs/agents.md's agent table does not give %s at %s", name, p.Version)
		}
	}
}
