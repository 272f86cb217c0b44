package viewer

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/git-snap/git-snap/internal/demo"
	"github.com/git-snap/git-snap/search"
)

// longSession is the longest real session in testdata.
const longSession = "4d5611e5-241a-462a-8d15-5122611a9569"

// answerPhrase is a piece of a line of an answer in the raw transcript:
// the start of the last line of an answer that starts with plain words, which the
// timeline shows as written (no Markdown marks in it).
func answerPhrase(t *testing.T, path string) string {
	t.Helper()
	plain := regexp.MustCompile(`^[A-Z][A-Za-z ,]{39}`)
	var phrase string
	for _, r := range rawRecords(t, path) {
		msg, _ := r["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		if r["type"] != "assistant" {
			continue
		}
		for _, b := range blocks {
			b, _ := b.(map[string]any)
			text, _ := b["text"].(string)
			for _, line := range strings.Split(text, "\n") {
				if m := plain.FindString(line); m != "" {
					phrase = m
				}
			}
		}
	}
	if phrase == "" {
		t.Fatalf("%s has no answer with a line of plain words", path)
	}
	return phrase
}

// A search for a line of a real session's answer finds it, marked, and
// its link lands on the answer in the session's timeline.
func TestBrowserSearch(t *testing.T) {
	tb := newTab(t)
	phrase := answerPhrase(t, "../testdata/claude-code/"+longSession+".jsonl")
	tb.open(t, "/")
	// The test's "/" also types itself in (the key's char event is sent
	// apart from its keydown): the box is emptied before the phrase.
	tb.do(t, chromedp.KeyEvent("/"))
	eval[string](t, tb, `document.activeElement.value = ""`)
	tb.do(t, chromedp.SendKeys("#find", phrase))
	if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.KeyEvent("\r"))); err != nil {
		t.Fatal(err)
	}
	if at := eval[string](t, tb, `location.pathname`); at != "/search" {
		t.Fatalf("Enter in the find box led to %s, want /search", at)
	}
	hits := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#hits li.hit")).map(h => h.dataset.session)`)
	if !slices.Contains(hits, longSession) {
		t.Fatalf("searching %q found hits in %v, want one in %s (%s)", phrase, hits, longSession, eval[string](t, tb, `location.href + document.querySelector("main").innerText.slice(0, 300)`))
	}
	marked := eval[string](t, tb, `document.querySelector("#hits li.hit[data-session='`+longSession+`'] mark").textContent`)
	if marked != phrase {
		t.Errorf("the hit marks %q, want %q", marked, phrase)
	}
	tb.shoot(t, "search")
	tb.submit(t, "#hits li.hit[data-session='"+longSession+"'] a.where", "/session/"+longSession+"#msg-")
	tb.waitFor(t, `document.querySelector("#timeline .current") !== null`)
	if got := eval[string](t, tb, `document.querySelector("#timeline .current").textContent`); !strings.Contains(got, phrase) {
		t.Errorf("the link landed on %.200q, want the answer with %q", got, phrase)
	}
	// In view once the page has settled (the tab's deadline bounds it).
	tb.waitFor(t, `(() => { const top = document.querySelector("#timeline .current").getBoundingClientRect().top; return top > -2 && top < innerHeight; })()`)
	tb.clean(t)
}

// A query from a hostile page or user is text: escaped where shown,
// refused with a reason when it cannot be searched for.
func TestBrowserSearchHostileQuery(t *testing.T) {
	tb := newTab(t)
	tb.open(t, "/search?q="+url.QueryEscape("<script>window.__pwned='prompt'</script>"))
	if n := eval[int](t, tb, `document.querySelectorAll("#hits li.hit[data-session='hostile']").length`); n == 0 {
		t.Error("searching the hostile prompt's script tag found nothing in the hostile session")
	}
	if v := eval[string](t, tb, `document.querySelector("#search-form input[name=q]").value`); v != "<script>window.__pwned='prompt'</script>" {
		t.Errorf("the search box holds %q, want the query as typed", v)
	}
	tb.clean(t)
}

func TestSearchRefusesWhatItCannotSearch(t *testing.T) {
	f := testFixture(t)
	for _, c := range []struct{ name, query, want string }{
		{"huge", "q=" + strings.Repeat("a", 5000), "limited to 4096 bytes"},
		{"repeat bomb", "re=1&q=" + url.QueryEscape("((a{1000}){1000}){1000}"), "cannot read the pattern"},
		{"bad regexp", "re=1&q=" + url.QueryEscape("(unclosed"), "cannot read the pattern"},
		{"bad glob", "q=x&session=" + url.QueryEscape("[z-a"), "session"},
		{"bad date", "q=x&since=" + url.QueryEscape("the day after"), "since"},
	} {
		resp, body := get(t, f, http.MethodGet, "/search?"+c.query, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.name, resp.StatusCode)
		}
		m := regexp.MustCompile(`(?s)<p class="error" id="search-error" role="alert">(.*?)</p>`).FindStringSubmatch(body)
		if m == nil || !strings.Contains(m[1], c.want) {
			t.Errorf("%s: the page says %q, want a message with %q", c.name, m, c.want)
		}
	}
	// A regular expression RE2 runs in linear time is searched, however
	// it would backtrack elsewhere.
	resp, body := get(t, f, http.MethodGet, "/search?re=1&q="+url.QueryEscape("(a+)+$"), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="hits"`) {
		t.Errorf("(a+)+$: status %d, want hits", resp.StatusCode)
	}
}

func TestPartsOf(t *testing.T) {
	line := "héllo wörld hello"
	parts := partsOf(line, [][2]int{{0, 6}, {3, 8}, {14, 19}, {20, 40}})
	var b strings.Builder
	for _, p := range parts {
		if p.Mark {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	if got, want := b.String(), "[héllo] wörld [hello]"; got != want {
		t.Errorf("partsOf = %q, want %q", got, want)
	}
}

// A viewer given no store for searches searches on its own store,
// between its pages.
func TestSearchOnTheViewersStore(t *testing.T) {
	ctx := t.Context()
	store, err := openRepo(ctx, filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := saveDemo(ctx, store, "demo"); err != nil {
		t.Fatal(err)
	}
	srv, err := New(store, Options{Addr: "127.0.0.1:7414", SearchDir: search.DefaultDir(store.Paths().CommonDir)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	steps, err := demo.Steps()
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := steps[len(steps)-1].Doc["messages"].([]any)
	first, _ := msgs[0].(map[string]any)
	text, _ := first["content"].(string)
	if len(text) < 12 {
		t.Fatalf("the demo's first message is %q, too short to search for", text)
	}
	req := httptest.NewRequest(http.MethodGet, "/search?q="+url.QueryEscape(text[:12]), nil)
	req.Host = "127.0.0.1:7414"
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `<li class="hit" data-session="demo">`) {
		t.Errorf("searching %q: status %d, no hit in demo: %.300s", text[:12], w.Code, w.Body.String())
	}
}
