package viewer

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var screenshots = flag.Bool("screenshots", false, "write a screenshot of each page to docs/screenshots/")

// chromium finds the browser: Debian's chromium, or another Chromium
// on PATH. Without one the browser tests skip, unless
// GIT_SNAP_REQUIRE_BROWSER is set (as .ci/run sets it): then they fail.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("GIT_SNAP_REQUIRE_BROWSER") != "" {
		t.Fatal("no Chromium found and GIT_SNAP_REQUIRE_BROWSER is set: install chromium")
	}
	t.Skip("no Chromium found (apt-get install chromium); set GIT_SNAP_REQUIRE_BROWSER=1 to make this a failure")
	return ""
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

// tab is one browser tab on the fixture's viewer, collecting what the
// page reports as errors: console errors, uncaught exceptions, and the
// browser's own log (failed loads, Content-Security-Policy violations).
type tab struct {
	ctx    context.Context
	f      *fixture
	mu     sync.Mutex
	errors []string
}

func newTab(t *testing.T) *tab {
	t.Helper()
	exe := chromium(t)
	f := testFixture(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1400, 1000),
		chromedp.DisableGPU,
		chromedp.Flag("no-proxy-server", true),
	)
	opts = append(opts, confined(t)...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	tb := &tab{ctx: ctx, f: f}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				tb.errors = append(tb.errors, fmt.Sprintf("console.%s: %s", ev.Type, args(ev.Args)))
			}
		case *runtime.EventExceptionThrown:
			tb.errors = append(tb.errors, "exception: "+ev.ExceptionDetails.Text+" "+exception(ev.ExceptionDetails))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				tb.errors = append(tb.errors, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	// The browser is started: a deadline on what the test asks of it
	// now ends a hung page, not the browser.
	tctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	tb.ctx = tctx
	return tb
}

func exception(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func args(a []*runtime.RemoteObject) string {
	var s []string
	for _, o := range a {
		s = append(s, string(o.Value)+o.Description)
	}
	return strings.Join(s, " ")
}

// open loads a page of the viewer and waits for its script to have run.
func (tb *tab) open(t *testing.T, path string) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(tb.f.url+path), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
}

// submit clicks a form's button or a link and waits for the page it
// leads to, whose address has want in it.
func (tb *tab) submit(t *testing.T, button, want string) {
	t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(button))); err != nil {
		t.Fatalf("click %s: %v", button, err)
	}
	if at := eval[string](t, tb, `location.href`); !strings.Contains(at, want) {
		t.Fatalf("after %s the page is %s, want one with %s", button, at, want)
	}
}

// waitFor waits until js is true in the page, across the page's own
// reloads, for as long as the tab's deadline.
func (tb *tab) waitFor(t *testing.T, js string) {
	t.Helper()
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		select {
		case <-tb.ctx.Done():
			t.Fatalf("waiting for %s: %v", js, tb.ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// do runs actions in the tab.
func (tb *tab) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a script in the page and returns its result.
func eval[T any](t *testing.T, tb *tab, js string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// clean fails the test for any error the pages reported, and for script
// the hostile transcript got to run.
func (tb *tab) clean(t *testing.T) {
	t.Helper()
	if pwned := eval[string](t, tb, `window.__pwned === undefined ? "" : String(window.__pwned)`); pwned != "" {
		t.Errorf("script from a transcript ran: window.__pwned = %q", pwned)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, e := range tb.errors {
		t.Errorf("the page reported %s", e)
	}
	tb.errors = nil
}

// shoot saves a screenshot of the page as docs/screenshots/name.png when
// the test runs with -screenshots.
func (tb *tab) shoot(t *testing.T, name string) {
	t.Helper()
	tb.shootWith(t, name, chromedp.CaptureScreenshot())
}

// shootWith is shoot with another capture: the whole page, say.
func (tb *tab) shootWith(t *testing.T, name string, capture chromedp.Action[[]byte]) {
	t.Helper()
	if !*screenshots {
		return
	}
	png, err := chromedp.Run(tb.ctx, capture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", "screenshots", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
