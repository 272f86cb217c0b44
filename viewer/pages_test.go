package viewer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
)

// rawRecords reads a JSONL transcript as the test's own reference.
func rawRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r map[string]any
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// firstTypedPrompt is the first user record of a Claude Code transcript
// whose content is a plain string: what the user typed first.
func firstTypedPrompt(t *testing.T, path string) string {
	for _, r := range rawRecords(t, path) {
		msg, _ := r["message"].(map[string]any)
		if s, ok := msg["content"].(string); ok && r["type"] == "user" {
			return s
		}
	}
	t.Fatalf("%s has no typed prompt", path)
	return ""
}

// demoFile is the content of a file the demo session captures at step i.
func demoFile(t *testing.T, i int, path string) string {
	t.Helper()
	steps, err := demo.Steps()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := steps[i].Doc["files"].(map[string]any)
	entry, _ := files[path].(map[string]any)
	content, _ := entry["content"].(string)
	if content == "" {
		t.Fatalf("demo step %d captures no %s", i, path)
	}
	return content
}

func TestBrowserSessions(t *testing.T) {
	tb := newTab(t)
	f := tb.f
	tb.open(t, "/")
	rows := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#sessions tr.session")).map(r => r.dataset.session)`)
	want := f.sessionNames()
	slices.Sort(rows)
	if !slices.Equal(rows, want) {
		t.Errorf("sessions listed:\n%v\nwant (every session imported, saved and fetched):\n%v", rows, want)
	}
	remote := eval[string](t, tb, `document.querySelector("#sessions tr.session.remote .badge").textContent`)
	if remote != "teammate" {
		t.Errorf("the fetched session is marked %q, want teammate", remote)
	}
	title := eval[string](t, tb, `document.querySelector("#sessions tr[data-session=short] td.title a").textContent`)
	if want := firstTypedPrompt(t, "../testdata/claude-code/short.jsonl"); title != short(want, 120) {
		t.Errorf("short's title is %q, want its first prompt %q", title, want)
	}
	// Its first prompt (one that starts with a tag is markup Claude Code
	// adds, not typed) is markup, shown as text.
	hostile := eval[string](t, tb, `document.querySelector("#sessions tr[data-session=hostile] td.title a").textContent`)
	elements := eval[int](t, tb, `document.querySelectorAll("#sessions tr[data-session=hostile] td.title a *").length`)
	if !strings.Contains(hostile, `<svg onload="window.__pwned='svg'">`) || elements != 0 {
		t.Errorf("the hostile prompt is not shown as text: %q, %d elements", hostile, elements)
	}
	tb.shoot(t, "sessions")
	tb.clean(t)

	// The agent filter, through the form as a person uses it.
	tb.do(t, chromedp.SetValue(`select[name=agent]`, "codex"))
	tb.submit(t, `form.filters button`, "agent=codex")
	agents := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#sessions tr.session")).map(r => r.dataset.agent)`)
	if n := f.count("codex"); len(agents) != n || slices.ContainsFunc(agents, func(a string) bool { return a != "codex" }) {
		t.Errorf("filtered by codex: %v, want %d codex sessions", agents, n)
	}
	tb.clean(t)

	// The text filter: only sessions whose name, prompt or branch has it.
	tb.open(t, "/")
	tb.do(t, chromedp.SendKeys(`form.filters input[name=q]`, "phx.server"))
	tb.submit(t, `form.filters button`, "q=phx.server")
	rows = eval[[]string](t, tb, `Array.from(document.querySelectorAll("#sessions tr.session")).map(r => r.dataset.session)`)
	if !slices.Equal(rows, []string{"short"}) {
		t.Errorf("filtered by phx.server: %v, want [short]", rows)
	}
	tb.clean(t)
}

func TestBrowserSnapshotDiff(t *testing.T) {
	tb := newTab(t)
	// demo#3 is the step whose Edit wrote auth/login.go.
	content := demoFile(t, 2, "auth/login.go")
	tb.open(t, "/snapshot/demo~3")
	added := eval[[]string](t, tb, `Array.from(document.querySelectorAll(".file-diff[data-path='auth/login.go'] tr.add pre")).map(p => p.textContent)`)
	for _, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		if !slices.Contains(added, "+"+line) {
			t.Errorf("the unified diff lacks the added line %q; it shows %q", line, added)
		}
	}
	tb.shoot(t, "snapshot")
	tb.clean(t)

	// Side by side, against the session's first snapshot, picked.
	first := eval[string](t, tb, `Array.from(document.querySelectorAll("#compare select option")).find(o => o.textContent.startsWith("#1 ")).value`)
	tb.do(t, chromedp.SetValue(`#compare select`, first), chromedp.Click(`#compare input[value=split]`))
	tb.submit(t, `#compare button`, "layout=split")
	right := eval[[]string](t, tb, `Array.from(document.querySelectorAll("table.diff.split td.add pre")).map(p => p.textContent)`)
	if !slices.Contains(right, "\t\treturn ErrNoSession") || !strings.Contains(content, "\t\treturn ErrNoSession") {
		t.Errorf("side by side from #1 lacks the line 'return ErrNoSession': %q", right)
	}
	heading := eval[string](t, tb, `document.querySelector("main h2").textContent`)
	if !strings.HasPrefix(heading, "Changes from #1 to #3") {
		t.Errorf("heading %q, want the diff from #1 to #3", heading)
	}
	tb.clean(t)
}

func TestBrowserFiles(t *testing.T) {
	tb := newTab(t)
	tb.open(t, "/files/demo")
	changed := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#files tr")).filter(r => r.textContent.includes("auth/login.go")).flatMap(r => Array.from(r.querySelectorAll("a.change")).map(a => a.textContent))`)
	if !slices.Equal(changed, []string{"#3"}) {
		t.Errorf("auth/login.go changed in %v, want [#3] (the demo's one Edit)", changed)
	}
	tb.submit(t, `#files a[href*="path="]`, "path=")
	lines := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#file-content pre")).map(p => p.textContent)`)
	if want := strings.Split(strings.TrimSuffix(demoFile(t, 5, "auth/login.go"), "\n"), "\n"); !slices.Equal(lines, want) {
		t.Errorf("content shown:\n%q\nwant:\n%q", lines, want)
	}
	tb.shoot(t, "files")
	tb.clean(t)
}

// Every page of the hostile session: its script never runs, and the
// pages report no error.
func TestBrowserHostile(t *testing.T) {
	tb := newTab(t)
	for _, p := range []string{"/", "/?q=script", "/session/hostile", "/snapshot/hostile", "/snapshot/hostile?layout=split", "/files/hostile"} {
		tb.open(t, p)
		tb.clean(t)
	}
}

func (f *fixture) sessionNames() []string {
	var out []string
	for s := range f.sessions {
		out = append(out, s)
	}
	out = append(out, f.remote)
	slices.Sort(out)
	return out
}

func (f *fixture) count(agent string) int {
	n := 0
	for _, a := range f.sessions {
		if a == agent {
			n++
		}
	}
	return n
}

var _ = fmt.Sprint

// A snapshot saved while the sessions page is open shows up on it
// without a reload by hand: the page follows the refs.
func TestBrowserLive(t *testing.T) {
	tb := newTab(t)
	f := tb.f
	tb.open(t, "/")
	ctx := tb.ctx
	other, err := gitstore.Open(ctx, f.dir, gitstore.Options{Identity: identity()}) // another writer, as a hook is
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	doc := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "LIVE-PROMPT appears by itself"}}}
	if _, err := other.Save(ctx, doc, gitstore.SaveOptions{Session: "live", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	f.sessions["live"] = "cli"
	js := `(document.querySelector("#sessions tr[data-session=live] td.title a") || {}).textContent === "LIVE-PROMPT appears by itself"`
	tb.waitFor(t, js)
	tb.clean(t)
}
