package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// failedCall is a tool call whose result the raw transcript marks as an
// error: the tool's name and what it was about.
type failedCall struct{ name, target string }

// readFailures lists the failed tool calls of Claude Code transcripts
// with encoding/json alone: tool_result blocks with is_error, matched to
// their tool_use by id.
func readFailures(t *testing.T, files []string) []failedCall {
	t.Helper()
	type use struct {
		name  string
		input map[string]any
	}
	uses := map[string]use{}
	var failed []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			var blocks []struct {
				Type      string         `json:"type"`
				ID        string         `json:"id"`
				Name      string         `json:"name"`
				Input     map[string]any `json:"input"`
				ToolUseID string         `json:"tool_use_id"`
				IsError   bool           `json:"is_error"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || json.Unmarshal(r.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				switch {
				case b.Type == "tool_use":
					uses[b.ID] = use{b.Name, b.Input}
				case b.Type == "tool_result" && b.IsError:
					failed = append(failed, b.ToolUseID)
				}
			}
		}
	}
	var out []failedCall
	for _, id := range failed {
		u, ok := uses[id]
		if !ok {
			t.Fatalf("failed result %s has no tool_use", id)
		}
		target := ""
		for _, k := range []string{"command", "file_path", "path", "pattern"} {
			if s, ok := u.input[k].(string); ok {
				target = strings.Join(strings.Fields(s), " ")
				break
			}
		}
		out = append(out, failedCall{u.name, target})
	}
	return out
}

var (
	liRE  = regexp.MustCompile(`(?s)<li>(.*?)</li>`)
	bqRE  = regexp.MustCompile(`(?s)<blockquote>(.*?)</blockquote>`)
	tagRE = regexp.MustCompile(`<[^>]*>`)
)

// plain is the text of rendered HTML: tags dropped, entities read,
// white space folded, and the marks Markdown may turn into tags gone.
func plain(h string) string {
	s := html.UnescapeString(tagRE.ReplaceAllString(h, ""))
	s = strings.NewReplacer("*", "", "_", "", "`", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// gfm parses and renders Markdown as GitHub does: CommonMark with the
// GFM extensions.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

// checkSized checks what every sized document must be: within the
// bound by any count of characters, details blocks that close, no HTML
// or headings of the transcript's own, a turn heading per turn at the
// top level and, when the document was cut, a top-level line per turn
// saying what it lost (which a fence or an HTML block left open would
// swallow).
func checkSized(t *testing.T, sess *Session, out []byte, bound int) mdDoc {
	t.Helper()
	if len(out) > bound || utf8.RuneCount(out) > bound {
		t.Errorf("%d bytes, %d characters: over the bound of %d", len(out), utf8.RuneCount(out), bound)
	}
	d := parseMarkdownWith(t, gfm, out)
	if len(d.h1) != 1 {
		t.Errorf("%d level-1 headings: %q", len(d.h1), d.h1)
	}
	if len(d.h2) != len(sess.Turns) {
		t.Errorf("%d level-2 headings for %d turns", len(d.h2), len(sess.Turns))
	}
	if d.deepHeadings != 0 {
		t.Errorf("%d headings of the document's levels inside other blocks", d.deepHeadings)
	}
	if d.opened != d.closed {
		t.Errorf("%d <details> opened, %d closed", d.opened, d.closed)
	}
	if len(d.otherHTML) > 0 || len(d.rawInline) > 0 {
		t.Errorf("HTML from the transcript: blocks %q, inline %q", d.otherHTML, d.rawInline)
	}
	// A paragraph after the end stays one unless a fence was left open.
	src := append(bytes.Clone(out), "\n\nthe-end\n"...)
	root := gfm.Parser().Parse(text.NewReader(src))
	notes, last := 0, ""
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		p, ok := n.(*ast.Paragraph)
		last = ""
		if ok {
			last = string(p.Lines().Value(src))
		}
		if strings.HasPrefix(last, "*Left out of ") {
			notes++
		}
	}
	if last != "the-end" {
		t.Errorf("a paragraph after the document is not one: a code fence was left open")
	}
	if bytes.Contains(out, []byte("*A summary cut to size")) && notes == 0 {
		t.Errorf("the document was cut and no turn says what it lost")
	}
	return d
}

// TestSizedMarkdownOfTheLongSession: the long real Claude Code session,
// 945,331 characters as a whole document, fits in a pull request's
// 65,536 with every prompt and every failed tool call of the raw files
// in it, each tool call on one line.
func TestSizedMarkdownOfTheLongSession(t *testing.T) {
	rs := realSessions[3]
	files := append([]string{rs.file}, rs.also...)
	ref := readReference(t, rs.agent, files)
	failures := readFailures(t, files)
	if len(ref.prompts) == 0 || len(failures) == 0 {
		t.Fatalf("the raw files hold %d prompts and %d failures: the test needs both", len(ref.prompts), len(failures))
	}
	s := newStore(t)
	importSession(t, s, rs.agent, rs.file, "long")
	sess := loadSession(t, s, "long", Options{})
	var whole, out bytes.Buffer
	if err := WriteMarkdown(context.Background(), &whole, sess); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownSized(&out, sess, SizedOptions{MaxChars: PRMaxChars}); err != nil {
		t.Fatal(err)
	}
	t.Logf("whole document %d bytes, sized %d bytes", whole.Len(), out.Len())
	if whole.Len() <= PRMaxChars {
		t.Fatalf("the whole document is %d bytes: nothing to cut", whole.Len())
	}
	checkSized(t, sess, out.Bytes(), PRMaxChars)
	if out.Len() < PRMaxChars*3/4 {
		t.Errorf("%d bytes: most of the room is left unused", out.Len())
	}

	var rendered bytes.Buffer
	if err := gfm.Convert(out.Bytes(), &rendered); err != nil {
		t.Fatal(err)
	}
	page := rendered.String()
	var quotes []string
	for _, m := range bqRE.FindAllStringSubmatch(page, -1) {
		quotes = append(quotes, plain(m[1]))
	}
	for _, p := range ref.prompts {
		want := plain(p)
		found := false
		for _, q := range quotes {
			found = found || strings.Contains(q, want)
		}
		if !found {
			t.Errorf("prompt %.80q is not quoted whole", want)
		}
	}

	var calls, failedLines []string
	for _, m := range liRE.FindAllStringSubmatch(page, -1) {
		li := plain(m[1])
		switch {
		case strings.HasPrefix(li, "✗ "):
			failedLines = append(failedLines, li)
			calls = append(calls, li)
		case strings.HasPrefix(li, "✓ "), strings.HasPrefix(li, "· "):
			calls = append(calls, li)
		}
	}
	if len(calls) != ref.toolCalls {
		t.Errorf("%d tool call lines, the raw files hold %d tool calls", len(calls), ref.toolCalls)
	}
	if len(failedLines) != len(failures) {
		t.Errorf("%d failed call lines, the raw files hold %d failures", len(failedLines), len(failures))
	}
	used := make([]bool, len(failedLines))
	for _, f := range failures {
		want := f.target[:min(len(f.target), 60)]
		found := false
		for i, li := range failedLines {
			if !used[i] && strings.Contains(li, "failed") && strings.Contains(li, f.name) && strings.Contains(li, plain(want)) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no line for the failed call %s %.60q", f.name, f.target)
		}
	}
	for _, want := range []string{"git snap export --format html", "git snap show long", "git snap export --bundle"} {
		if !strings.Contains(page, want) {
			t.Errorf("the document does not say how to get the whole session: no %q", want)
		}
	}
}

// TestSizedMarkdownFitsAnyBound: from the smallest bound taken to a
// pull request's, real and hostile sessions fit, and render with every
// block closed.
func TestSizedMarkdownFitsAnyBound(t *testing.T) {
	s := newStore(t)
	rs := realSessions[3]
	importSession(t, s, rs.agent, rs.file, "long")
	saveDoc(t, s, "hostile", hostile)
	// An answer that is mostly one long code fence, then text: a cut
	// inside the fence would leave it open over the rest.
	var fence strings.Builder
	fence.WriteString("Here is the file:\\n\\n```go\\n")
	for i := range 3000 {
		fmt.Fprintf(&fence, "var x%d = `raw` // </details> <script>\\n", i)
	}
	fence.WriteString("```\\n\\nAnd after it, the end.")
	saveDoc(t, s, "fence", `{"messages": [{"role": "user", "content": "show me"}, {"role": "assistant", "content": "`+fence.String()+`"},
		{"role": "user", "content": "again"}, {"role": "assistant", "content": "`+fence.String()+`"}]}`)
	// Prompts too long for the bound: one line of 20,000 characters, and
	// one that opens a fence at once: cut, and the quote closed.
	saveDoc(t, s, "prompts", `{"messages": [{"role": "user", "content": "`+strings.Repeat("word *and* `code` &lt; ", 1000)+`"}, {"role": "assistant", "content": "ok"},
		{"role": "user", "content": "`+"```\\n"+strings.Repeat("log line\\n", 3000)+`"}, {"role": "assistant", "content": "ok"}]}`)
	for _, name := range []string{"long", "hostile", "fence", "prompts"} {
		sess := loadSession(t, s, name, Options{})
		for _, bound := range []int{MinMaxChars, 10000, 30000, PRMaxChars} {
			t.Run(fmt.Sprintf("%s/%d", name, bound), func(t *testing.T) {
				var out bytes.Buffer
				if err := WriteMarkdownSized(&out, sess, SizedOptions{MaxChars: bound}); err != nil {
					t.Fatal(err)
				}
				checkSized(t, sess, out.Bytes(), bound)
			})
		}
	}
}

// TestSizedMarkdownWholeWhenItFits: a session whose whole document fits
// is written whole; a bound below the least is the caller's mistake.
func TestSizedMarkdownWholeWhenItFits(t *testing.T) {
	s := newStore(t)
	importSession(t, s, "claude-code", "claude-code/tool_heavy.jsonl", "short")
	sess := loadSession(t, s, "short", Options{})
	var whole, sized bytes.Buffer
	if err := WriteMarkdown(context.Background(), &whole, sess); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownSized(&sized, sess, SizedOptions{MaxChars: whole.Len()}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole.Bytes(), sized.Bytes()) {
		t.Errorf("a document that fits was changed")
	}
	sized.Reset()
	if err := WriteMarkdownSized(&sized, sess, SizedOptions{MaxChars: whole.Len() - 1}); err != nil {
		t.Fatal(err)
	}
	if sized.Len() >= whole.Len() || !bytes.Contains(sized.Bytes(), []byte("A summary cut to size")) {
		t.Errorf("one byte over the bound: %d bytes, not cut to size", sized.Len())
	}
	err := WriteMarkdownSized(&sized, sess, SizedOptions{MaxChars: MinMaxChars - 1})
	if _, ok := err.(interface{ UserError() }); !ok {
		t.Errorf("a bound of %d: %v, want a user error", MinMaxChars-1, err)
	}
}

// TestPRSummaryFits: the summary of two real sessions, at a pull
// request's bound and at the least, stays within it, names each session
// with the command that fetches it, and keeps a line per prompt of the
// raw files; at 65,536 every prompt is whole.
func TestPRSummaryFits(t *testing.T) {
	s := newStore(t)
	long, heavy := realSessions[3], realSessions[1]
	importSession(t, s, long.agent, long.file, "long")
	importSession(t, s, heavy.agent, heavy.file, "heavy")
	var prompts []string
	for _, rs := range []struct{ agent, file string }{{long.agent, long.file}, {heavy.agent, heavy.file}} {
		prompts = append(prompts, readReference(t, rs.agent, []string{rs.file}).prompts...)
	}
	// A prompt of 30,000 characters holding a code fence: cut to fit,
	// and the fence closed.
	big := "paste:\\n```\\n" + strings.Repeat("line of a log\\n", 2000) + "```\\nwhat broke?"
	saveDoc(t, s, "big", `{"messages": [{"role": "user", "content": "`+big+`"}, {"role": "assistant", "content": "this"}]}`)
	prompts = append(prompts, "paste:")
	pr := PR{Range: "main..HEAD", Commits: 3}
	for _, name := range []string{"long", "heavy", "big"} {
		pr.Sessions = append(pr.Sessions, PRSession{Session: loadSession(t, s, name, Options{}), Commits: []string{strings.Repeat("a", 40)}, Snapshots: 1})
	}
	for _, bound := range []int{MinMaxChars, PRMaxChars} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			var out bytes.Buffer
			if err := WritePR(&out, pr, SizedOptions{MaxChars: bound}); err != nil {
				t.Fatal(err)
			}
			if out.Len() > bound {
				t.Errorf("%d bytes, over %d", out.Len(), bound)
			}
			d := parseMarkdownWith(t, gfm, out.Bytes())
			if len(d.otherHTML) > 0 || len(d.rawInline) > 0 || d.opened != 0 {
				t.Errorf("HTML in the summary: %q %q", d.otherHTML, d.rawInline)
			}
			if strings.Join(d.h3, ",") != "long,heavy,big" {
				t.Errorf("sessions %q, want long,heavy,big", d.h3)
			}
			src := append(bytes.Clone(out.Bytes()), "\n\nthe-end\n"...)
			if last := gfm.Parser().Parse(text.NewReader(src)).LastChild(); last.Kind() != ast.KindParagraph || string(last.Lines().Value(src)) != "the-end" {
				t.Errorf("a paragraph after the summary is not one: a fence was left open")
			}
			if cut := bytes.Contains(out.Bytes(), []byte("of this prompt cut")); cut != (bound < PRMaxChars) {
				t.Errorf("the long prompt cut: %v, at a bound of %d", cut, bound)
			}
			for _, want := range []string{"git snap pull origin long", "git snap pull origin heavy"} {
				if !bytes.Contains(out.Bytes(), []byte(want)) {
					t.Errorf("no %q", want)
				}
			}
			if n := bytes.Count(out.Bytes(), []byte("\n**Prompt ")); n != len(prompts) {
				t.Errorf("%d prompt lines, the raw files hold %d prompts", n, len(prompts))
			}
			if bound < PRMaxChars {
				return
			}
			var rendered bytes.Buffer
			if err := gfm.Convert(out.Bytes(), &rendered); err != nil {
				t.Fatal(err)
			}
			page := plain(rendered.String())
			for _, p := range prompts {
				if !strings.Contains(page, plain(p)) {
					t.Errorf("prompt %.80q is not whole", p)
				}
			}
		})
	}
}

// TestPRSummaryMentionsNoOne: a prompt that names people and teams
// pings no one once posted: each @ that starts
// a name gets a zero-width joiner, outside code only; mail addresses and
// code are left as they are.
func TestPRSummaryMentionsNoOne(t *testing.T) {
	s := newStore(t)
	prompt := "ask @alice and @acme/reviewers (cc @all), &#64;carol, &#x40;dave, &commat;erin, \\\\@frank, mail bob@example.com, keep `@code` as it is\\n```\\n@in-a-fence\\n```"
	saveDoc(t, s, "mention", `{"messages": [{"role": "user", "content": "`+prompt+`"}, {"role": "assistant", "content": "ok"}]}`)
	pr := PR{Range: "main..HEAD", Commits: 1, Sessions: []PRSession{{Session: loadSession(t, s, "mention", Options{}), Commits: []string{strings.Repeat("a", 40)}, Snapshots: 1}}}
	var out bytes.Buffer
	if err := WritePR(&out, pr, SizedOptions{MaxChars: PRMaxChars}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	mention := regexp.MustCompile(`(^|[^\w.+\-@/])@[A-Za-z0-9]`)
	for _, line := range strings.Split(got, "\n") {
		if mention.MatchString(line) && !strings.Contains(line, "`@code`") && line != "> @in-a-fence" {
			t.Errorf("a live mention: %q", line)
		}
	}
	for _, want := range []string{"@\u200dalice", "@\u200dacme/reviewers", "@\u200dall", "@\u200dcarol", "@\u200ddave", "@\u200derin", "@\u200dfrank", "bob@example.com", "`@code`", "> @in-a-fence"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
