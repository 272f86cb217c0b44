package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// browser starts a headless Chromium for the test. It skips the test
// only when there is no Chromium and GIT_SNAP_REQUIRE_BROWSER is unset:
// CI sets it, so there it fails instead.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := "/usr/bin/chromium"
	if _, err := os.Stat(path); err != nil {
		if path, err = exec.LookPath("chromium"); err != nil {
			if os.Getenv("GIT_SNAP_REQUIRE_BROWSER") != "" {
				t.Fatalf("GIT_SNAP_REQUIRE_BROWSER is set and there is no chromium: %v", err)
			}
			t.Skip("no chromium on this machine (install it, or set GIT_SNAP_REQUIRE_BROWSER=1 to make this a failure)")
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	opts = append(opts, confined(t)...)
	// A bound on the whole browser session, so that a hung browser fails
	// the test instead of stalling the run; nothing is timed.
	ctx, cancelTimeout := context.WithTimeout(context.Background(), 5*time.Minute)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelCtx := chromedp.NewContext(ctx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc(); cancelTimeout() })
	return ctx
}

// confined keeps the browser to the test's own files and to loopback.
// Chromium writes its crash-report folder, dconf's cache and the socket
// that keeps one browser per profile under HOME and TMPDIR whatever
// profile it is given: both point into a temporary folder of the test,
// whose name is short, not t.TempDir's, because the socket's path must
// fit in 108 bytes. It looks up Google's hosts on its own (accounts,
// extension updates): every host name is made unknown, which leaves the
// pages the tests open, all at 127.0.0.1, as they are.
func confined(t *testing.T) []chromedp.ExecAllocatorOption {
	t.Helper()
	home, err := os.MkdirTemp("", "browser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return []chromedp.ExecAllocatorOption{
		chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
			"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "TMPDIR="+home),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	}
}

// pageErrors collects what the page reports as errors: console.error,
// uncaught exceptions, and the browser's own log (a blocked resource, a
// Content-Security-Policy violation).
type pageErrors struct {
	mu   sync.Mutex
	list []string
}

func (p *pageErrors) listen(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				p.list = append(p.list, fmt.Sprintf("console.error %v", ev.Args))
			}
		case *runtime.EventExceptionThrown:
			p.list = append(p.list, "exception "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				p.list = append(p.list, "log "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
}

func (p *pageErrors) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.list
	p.list = nil
	return out
}

// serve serves pages by path on 127.0.0.1.
func serve(t *testing.T, pages map[string][]byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, ok := pages[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNoContent) // favicon.ico: no error to report
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page) // the browser hanging up is its business
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// pageFacts are what the test reads from a loaded page.
type pageFacts struct {
	H1        []string `json:"h1"`
	H2        []string `json:"h2"`
	ToolCalls int      `json:"toolCalls"`
	Failed    int      `json:"failed"`
	Pwned     bool     `json:"pwned"`
	MaxWidth  string   `json:"maxWidth"`
}

const factsJS = `({
	h1: Array.from(document.querySelectorAll("h1"), h => h.textContent),
	h2: Array.from(document.querySelectorAll("h2"), h => h.textContent),
	toolCalls: document.querySelectorAll("details.tool-call").length,
	failed: document.querySelectorAll("details.tool-call.failed").length,
	pwned: typeof window.pwned !== "undefined",
	maxWidth: getComputedStyle(document.querySelector("article.snap-report")).maxWidth,
})`

// openPage opens url, reads the page's facts and takes a screenshot.
func openPage(t *testing.T, ctx context.Context, url string) (pageFacts, []byte) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](factsJS))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return facts, shot
}

// checkScreenshot checks that a screenshot is a PNG with something drawn
// on it, and keeps it in $GIT_SNAP_SCREENSHOTS (else the test's temporary
// directory) for a person to look at.
func checkScreenshot(t *testing.T, name string, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", name, err)
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("screenshot of %s (%v) has %d colours: nothing was drawn", name, b.Size(), len(colours))
	}
	dir := os.Getenv("GIT_SNAP_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name+".png")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestExportsRenderInChromium loads the HTML exports of the long real
// Claude Code session and a real Codex rollout in headless Chromium: the
// headings and tool calls the raw files call for, the inline CSS applied,
// no console error, a screenshot. A hostile transcript runs no script,
// as a page with its Content-Security-Policy and as a fragment in a page
// without one, while a page's own script does run (so the check can see
// one).
func TestExportsRenderInChromium(t *testing.T) {
	ctx := browser(t)
	var errs pageErrors
	errs.listen(t, ctx)
	s := newStore(t)
	pages := map[string][]byte{}
	refs := map[string]reference{}
	for _, rs := range []int{3, 4} {
		rs := realSessions[rs]
		name := strings.TrimSuffix(filepath.Base(rs.file), ".jsonl")[:20]
		importSession(t, s, rs.agent, rs.file, name)
		refs[name] = readReference(t, rs.agent, append([]string{rs.file}, rs.also...))
		pages["/"+name] = renderHTML(t, loadSession(t, s, name, Options{}), HTMLOptions{})
	}
	saveDoc(t, s, "hostile", hostile)
	pages["/hostile"] = renderHTML(t, loadSession(t, s, "hostile", Options{}), HTMLOptions{})
	fragment := renderHTML(t, loadSession(t, s, "hostile", Options{}), HTMLOptions{Fragment: true})
	pages["/hostile-fragment"] = []byte("<!DOCTYPE html><html><head><style>" + CSS + "</style></head><body>" + string(fragment) + "</body></html>")
	pages["/control"] = []byte(`<!DOCTYPE html><html><body><article class="snap-report"></article><script>window.pwned = 1</script></body></html>`)
	base := serve(t, pages)

	if facts, _ := openPage(t, ctx, base+"/control"); !facts.Pwned {
		t.Fatalf("a page's own script did not run: the check for scripts sees nothing")
	}
	errs.take()
	for name, ref := range refs {
		facts, shot := openPage(t, ctx, base+"/"+name)
		if len(facts.H1) != 1 || facts.H1[0] != "Session "+name {
			t.Errorf("%s: h1 %q", name, facts.H1)
		}
		turns := 0
		for _, h := range facts.H2 {
			if strings.HasPrefix(h, "Turn ") {
				turns++
			}
		}
		if turns != len(ref.prompts) || facts.ToolCalls != ref.toolCalls {
			t.Errorf("%s: %d turn headings and %d tool calls on the page, the raw files hold %d prompts and %d tool calls",
				name, turns, facts.ToolCalls, len(ref.prompts), ref.toolCalls)
		}
		if facts.MaxWidth != "980px" || facts.Pwned {
			t.Errorf("%s: inline CSS applied: max-width %q; a script ran: %v", name, facts.MaxWidth, facts.Pwned)
		}
		if e := errs.take(); len(e) > 0 {
			t.Errorf("%s: errors in the browser: %q", name, e)
		}
		checkScreenshot(t, name, shot)
	}
	for _, page := range []string{"hostile", "hostile-fragment"} {
		facts, shot := openPage(t, ctx, base+"/"+page)
		if facts.Pwned {
			t.Errorf("%s: the transcript ran a script", page)
		}
		if len(facts.H2) != 2 || facts.ToolCalls != 1 || facts.Failed != 1 {
			t.Errorf("%s: h2 %q, %d tool calls (%d failed), want 2 turns and 1 failed call", page, facts.H2, facts.ToolCalls, facts.Failed)
		}
		if e := errs.take(); len(e) > 0 {
			t.Errorf("%s: errors in the browser: %q", page, e)
		}
		checkScreenshot(t, page, shot)
	}
}

func renderHTML(t *testing.T, sess *Session, o HTMLOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(context.Background(), &buf, sess, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSizedMarkdownRendersInChromium renders the PR-sized Markdown of
// the long real Claude Code session, and a pull request's summary of it,
// as GitHub does (GFM, the document's own <details> kept) and loads them
// in headless Chromium: both turns, a line per tool call with the 13
// failed ones, each <details> closed where it was opened (nothing after
// it swallowed: the document's last paragraph is the last element), no
// script run, no error; screenshots for a person.
func TestSizedMarkdownRendersInChromium(t *testing.T) {
	ctx := browser(t)
	var errs pageErrors
	errs.listen(t, ctx)
	s := newStore(t)
	rs := realSessions[3]
	ref := readReference(t, rs.agent, append([]string{rs.file}, rs.also...))
	failures := readFailures(t, append([]string{rs.file}, rs.also...))
	importSession(t, s, rs.agent, rs.file, "4d5611e5")
	sess := loadSession(t, s, "4d5611e5", Options{})
	var sized, summary bytes.Buffer
	if err := WriteMarkdownSized(&sized, sess, SizedOptions{MaxChars: PRMaxChars}); err != nil {
		t.Fatal(err)
	}
	pr := PR{Range: "main..fix-transcripts", Commits: 4, Sessions: []PRSession{{Session: sess, Commits: []string{strings.Repeat("3", 40), strings.Repeat("7", 40)}, Snapshots: 2, By: "commit"}}}
	if err := WritePR(&summary, pr, SizedOptions{MaxChars: PRMaxChars}); err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	page := func(src []byte) []byte {
		var body bytes.Buffer
		if err := md.Convert(src, &body); err != nil {
			t.Fatal(err)
		}
		return []byte(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font:14px/1.5 -apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:860px;margin:16px auto;padding:16px;border:1px solid #d0d7de;border-radius:6px}
pre{background:#f6f8fa;padding:8px;overflow:auto} code{font-size:85%} blockquote{color:#59636e;border-left:.25em solid #d0d7de;margin:0;padding:0 1em}
table{border-collapse:collapse} td,th{border:1px solid #d0d7de;padding:4px 8px} details{margin:4px 0}
</style></head><body>` + body.String() + `</body></html>`)
	}
	base := serve(t, map[string][]byte{"/comment": page(sized.Bytes()), "/summary": page(summary.Bytes())})
	const js = `({
		h2: Array.from(document.querySelectorAll("body > h2"), h => h.textContent),
		failedLines: Array.from(document.querySelectorAll("li")).filter(li => li.textContent.startsWith("✗ ")).length,
		callLines: Array.from(document.querySelectorAll("li")).filter(li => /^[✓✗·] /.test(li.textContent)).length,
		details: document.querySelectorAll("details").length,
		nested: document.querySelectorAll("details details, details h2, details blockquote").length,
		last: document.body.lastElementChild.textContent,
		pwned: typeof window.pwned !== "undefined",
	})`
	type facts struct {
		H2          []string `json:"h2"`
		FailedLines int      `json:"failedLines"`
		CallLines   int      `json:"callLines"`
		Details     int      `json:"details"`
		Nested      int      `json:"nested"`
		Last        string   `json:"last"`
		Pwned       bool     `json:"pwned"`
	}
	for _, name := range []string{"comment", "summary"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"+name)); err != nil {
			t.Fatal(err)
		}
		f, err := chromedp.Run(ctx, chromedp.Evaluate[facts](js))
		if err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		src := map[string][]byte{"comment": sized.Bytes(), "summary": summary.Bytes()}[name]
		if want := bytes.Count(src, []byte("\n<details")); f.Details != want || f.Nested != 0 {
			t.Errorf("%s: %d details on the page (%d nested or holding the document's blocks), the Markdown opens %d", name, f.Details, f.Nested, want)
		}
		if f.Pwned {
			t.Errorf("%s: a script ran", name)
		}
		switch name {
		case "comment":
			if len(f.H2) != len(ref.prompts) || f.CallLines != ref.toolCalls || f.FailedLines != len(failures) {
				t.Errorf("comment: %d turns, %d call lines (%d failed); the raw files hold %d prompts, %d calls, %d failures",
					len(f.H2), f.CallLines, f.FailedLines, len(ref.prompts), ref.toolCalls, len(failures))
			}
			if !strings.HasPrefix(f.Last, "Not shown:") {
				t.Errorf("comment: the page ends with %.80q, not the document's last paragraph", f.Last)
			}
		case "summary":
			if !strings.HasPrefix(f.Last, "The whole session:") {
				t.Errorf("summary: the page ends with %.80q, not the session's last line", f.Last)
			}
		}
		if e := errs.take(); len(e) > 0 {
			t.Errorf("%s: errors in the browser: %q", name, e)
		}
		checkScreenshot(t, "pr-"+name, shot)
	}
}
