package viewer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
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

// A snapshot saved while the sessions page is open shows up on it
// without a reload by hand: the page follows the refs.
func TestBrowserLive(t *testing.T) {
	tb := newTab(t)
	f := tb.f
	tb.open(t, "/")
	ctx := tb.ctx
	other, err := gitstore.Open(ctx, f.dir, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()}) // another writer, as a hook is
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	doc := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "LIVE-PROMPT appears by itself"}}}
	if _, err := other.Save(ctx, doc, storage.SaveOptions{Session: "live", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	f.sessions["live"] = "cli"
	js := `(document.querySelector("#sessions tr[data-session=live] td.title a") || {}).textContent === "LIVE-PROMPT appears by itself"`
	tb.waitFor(t, js)
	tb.clean(t)
}

// claudeTokens is the reference for a Claude Code session's tokens, its
// subagents' files with it: one model call per API response id, its last
// usage counting (docs/design.md §8), every kind of token added up.
func claudeTokens(t *testing.T, paths ...string) int64 {
	var records []map[string]any
	for _, p := range paths {
		records = append(records, rawRecords(t, p)...)
	}
	return claudeTokensOf(records)
}

// splitAtSecondPrompt cuts a Claude Code transcript's records before the
// second prompt the user typed (a user record of text, not injected by
// the harness, not a command's output, not a subagent's).
func splitAtSecondPrompt(t *testing.T, path string) (before, after []map[string]any) {
	records := rawRecords(t, path)
	prompts := 0
	for i, r := range records {
		msg, _ := r["message"].(map[string]any)
		text, ok := msg["content"].(string)
		if !ok || r["type"] != "user" || r["isMeta"] == true || r["isSidechain"] == true || r["isCompactSummary"] == true || strings.HasPrefix(text, "<") {
			continue
		}
		if prompts++; prompts == 2 {
			return records[:i], records[i:]
		}
	}
	t.Fatalf("%s has fewer than two prompts", path)
	return nil, nil
}

// claudeTokensOf adds up records' tokens as claudeTokens does.
func claudeTokensOf(records []map[string]any) int64 {
	last := map[string]map[string]any{}
	for _, r := range records {
		msg, _ := r["message"].(map[string]any)
		id, _ := msg["id"].(string)
		if u, ok := msg["usage"].(map[string]any); ok && r["type"] == "assistant" && id != "" {
			last[id] = u
		}
	}
	var sum int64
	for _, u := range last {
		for _, k := range []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"} {
			n, _ := u[k].(float64)
			sum += int64(n)
		}
	}
	return sum
}

func TestBrowserTimeline(t *testing.T) {
	tb := newTab(t)
	const long = "4d5611e5-241a-462a-8d15-5122611a9569"
	tb.open(t, "/session/"+long)

	// Tokens per turn add up to the session's, from the raw file.
	perTurn := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#turns tbody tr td:nth-child(2)")).map(td => td.textContent)`)
	var sum int64
	for _, s := range perTurn {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("tokens of a turn: %v", err)
		}
		sum += n
	}
	files, _ := filepath.Glob("../testdata/claude-code/" + long + "/subagents/*.jsonl")
	if want := claudeTokens(t, append(files, "../testdata/claude-code/"+long+".jsonl")...); sum != want || want == 0 {
		t.Errorf("tokens per turn add up to %d, want %d (the transcript's)", sum, want)
	}
	// Each turn's tokens are its records' and those of the subagents it
	// ran, though an import records the subagents' after every turn.
	if len(perTurn) != 2 {
		t.Fatalf("the rail lists %d turns, want 2", len(perTurn))
	}
	turn1, turn2 := splitAtSecondPrompt(t, "../testdata/claude-code/"+long+".jsonl")
	sub := "../testdata/claude-code/" + long + "/subagents/"
	for i, want := range []int64{
		claudeTokensOf(slices.Concat(turn1, rawRecords(t, sub+"agent-a2898e3.jsonl"))),
		claudeTokensOf(slices.Concat(turn2, rawRecords(t, sub+"agent-acompact-e1f845.jsonl"))),
	} {
		if got, _ := strconv.ParseInt(strings.ReplaceAll(perTurn[i], ",", ""), 10, 64); got != want {
			t.Errorf("turn %d: %d tokens, want %d (its records' and its subagent's)", i+1, got, want)
		}
	}
	// Every turn the rail lists is in the timeline, and the chart is drawn.
	missing := eval[int](t, tb, `Array.from(document.querySelectorAll("#turns a")).filter(a => !document.querySelector(a.getAttribute("href"))).length`)
	points := eval[int](t, tb, `document.querySelector("#chart polyline.context").getAttribute("points").split(" ").length`)
	if missing != 0 || points < 2 {
		t.Errorf("%d turns of the rail not in the timeline; %d points in the chart", missing, points)
	}

	// A tool call opens to show its input and result.
	tb.do(t, chromedp.Click(`#timeline details.tool-call > summary`))
	open := eval[bool](t, tb, `(() => { const d = document.querySelector("#timeline details.tool-call"); return d.open && d.querySelector("section.input pre").offsetParent !== null })()`)
	if !open {
		t.Errorf("a tool call did not open on a click")
	}
	tb.shoot(t, "timeline")

	// The rail: without tool calls, none is shown and prompts still are.
	visible := `(sel) => Array.from(document.querySelectorAll("#timeline " + sel)).filter(e => e.offsetParent !== null).length`
	count := func(sel string) int { return eval[int](t, tb, "("+visible+")("+fmt.Sprintf("%q", sel)+")") }
	tools, prompts := count("details.tool-call"), count("blockquote.prompt")
	tb.do(t, chromedp.Click(`#rail input[data-kind=tool]`))
	if n := count("details.tool-call"); n != 0 || tools == 0 {
		t.Errorf("tool calls unticked: %d of %d shown", n, tools)
	}
	if n := count("blockquote.prompt"); n != prompts || n == 0 {
		t.Errorf("tool calls unticked: %d prompts shown, want %d", n, prompts)
	}
	tb.do(t, chromedp.Click(`#rail input[data-kind=tool]`), chromedp.Click(`#only-failed`))
	failed, shown := count("details.tool-call.failed"), count("details, blockquote.prompt, div.text, div.markdown")
	if failed == 0 || shown != failed {
		t.Errorf("failures only: %d elements shown, %d of them failed tool calls", shown, failed)
	}
	tb.do(t, chromedp.Click(`#only-failed`))

	// Keys: j to the next turn, / to the find box.
	tb.do(t, chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	if cur := eval[string](t, tb, `(document.querySelector("#timeline .current") || {}).id || ""`); !strings.HasPrefix(cur, "turn-") {
		t.Errorf("after j j the current element is %q, want a turn", cur)
	}
	tb.do(t, chromedp.KeyEvent("/"))
	if id := eval[string](t, tb, `document.activeElement.id`); id != "find" {
		t.Errorf("after / the focus is on %q, want the find box", id)
	}
	tb.clean(t)

	// Markdown answers are rendered, raw HTML in them is not.
	tb.open(t, "/session/hostile")
	strong := eval[int](t, tb, `document.querySelectorAll("#timeline div.markdown strong").length`)
	text := eval[string](t, tb, `document.querySelector("#timeline").textContent`)
	if strong == 0 || !strings.Contains(text, "<script>window.__pwned='prompt'</script>") {
		t.Errorf("hostile timeline: %d bold answers; the prompt shown as text: %v", strong, strings.Contains(text, "<script>"))
	}
	tb.clean(t)
}

// The Markdown and HTML exports the timeline links to are report's.
func TestExportLinks(t *testing.T) {
	f := testFixture(t)
	resp, md := get(t, f, http.MethodGet, "/export/markdown/short", nil)
	prompt := firstTypedPrompt(t, "../testdata/claude-code/short.jsonl")
	if resp.StatusCode != http.StatusOK || !strings.Contains(md, prompt) {
		t.Errorf("markdown export: %d, the first prompt in it: %v", resp.StatusCode, strings.Contains(md, prompt))
	}
	resp, page := get(t, f, http.MethodGet, "/export/html/demo?from=demo~3", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="demo-6.html"`) || !strings.Contains(page, "#3") {
		t.Errorf("html export of demo~3..demo: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	if problems := scriptIn(page); len(problems) != 0 {
		t.Errorf("the HTML export holds script: %v", problems)
	}
}
