package viewer

import (
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// get sends a request to the fixture's viewer over a real connection,
// with the headers given.
func get(t *testing.T, f *fixture, method, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// A page on another site must not read the viewer: a name that
// resolves to 127.0.0.1 (DNS rebinding) is refused by its Host, a
// request sent from another origin by its Origin or Sec-Fetch-Site.
func TestForeignHostOrOriginRefused(t *testing.T) {
	f := testFixture(t)
	_, port, _ := strings.Cut(f.addr, ":")
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"own address", nil, http.StatusOK},
		{"localhost", map[string]string{"Host": "localhost:" + port}, http.StatusOK},
		{"rebound name", map[string]string{"Host": "evil.example:" + port}, http.StatusMisdirectedRequest},
		{"rebound name, no port", map[string]string{"Host": "evil.example"}, http.StatusMisdirectedRequest},
		{"localhost.evil", map[string]string{"Host": "localhost.evil.example:" + port}, http.StatusMisdirectedRequest},
		{"other port", map[string]string{"Host": "127.0.0.1:1"}, http.StatusMisdirectedRequest},
		{"other address", map[string]string{"Host": "10.0.0.1:" + port}, http.StatusMisdirectedRequest},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"origin on the address, other port", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"own origin", map[string]string{"Origin": "http://" + f.addr}, http.StatusOK},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	} {
		for _, path := range []string{"/", "/session/short", "/export/markdown/short", "/static/viewer.js"} {
			resp, body := get(t, f, http.MethodGet, path, c.header)
			want := c.status
			if resp.StatusCode != want {
				t.Errorf("%s: GET %s: status %d, want %d (%.100s)", c.name, path, resp.StatusCode, want, body)
			}
			if want != http.StatusOK && strings.Contains(body, "short") {
				t.Errorf("%s: GET %s: a refused request got content: %.200s", c.name, path, body)
			}
		}
	}
}

// Nothing but reads: every other method is refused before any handler.
func TestOnlyReads(t *testing.T) {
	f := testFixture(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "PROPFIND"} {
		resp, _ := get(t, f, m, "/session/short", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", m, resp.StatusCode)
		}
	}
}

// Every answer carries the policy that lets only the viewer's own script
// run, and the headers that keep it out of frames and sniffing.
func TestSecurityHeaders(t *testing.T) {
	f := testFixture(t)
	for _, path := range []string{"/", "/session/hostile", "/snapshot/demo", "/files/demo", "/nothing", "/static/viewer.css"} {
		resp, _ := get(t, f, http.MethodGet, path, nil)
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: Content-Security-Policy allows inline script: %q", path, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
	}
}

// No page holds script of its own: the only script element is the
// viewer's, empty, from /static; no element has an event handler
// attribute or a javascript: URL, whatever the transcript holds.
func TestNoInlineScript(t *testing.T) {
	f := testFixture(t)
	for _, path := range []string{"/", "/?q=script", "/session/hostile", "/snapshot/hostile", "/snapshot/hostile?layout=split", "/files/hostile", "/session/demo"} {
		resp, body := get(t, f, http.MethodGet, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", path, resp.StatusCode)
		}
		for _, problem := range scriptIn(body) {
			t.Errorf("%s: %s", path, problem)
		}
	}
}

// scriptIn parses a page as a browser would and lists what could run.
func scriptIn(page string) []string {
	var out []string
	z := html.NewTokenizer(strings.NewReader(page))
	inScript := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.TextToken:
			if inScript && strings.TrimSpace(string(z.Text())) != "" {
				out = append(out, "inline script: "+string(z.Text()))
			}
		case html.EndTagToken:
			inScript = false
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data == "script" {
				inScript = true
				if len(tok.Attr) != 2 || tok.Attr[0].Key != "src" || tok.Attr[0].Val != "/static/viewer.js" {
					out = append(out, "a script element other than the viewer's: "+tok.String())
				}
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
				switch {
				case strings.HasPrefix(a.Key, "on"):
					out = append(out, "an event handler: "+tok.String())
				case (a.Key == "href" || a.Key == "src" || a.Key == "action" || a.Key == "xlink:href") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:")):
					out = append(out, "a script URL: "+tok.String())
				}
			}
		}
	}
}

// Following every link of every page (once each) never changes the
// repository: no file under .git is written, added or removed.
func TestCrawlWritesNothing(t *testing.T) {
	f := testFixture(t)
	before := gitFiles(t, f.gitDir)
	seen := map[string]bool{}
	queue := []string{"/"}
	href := regexp.MustCompile(`(?:href|src)="(/[^"]*)"`)
	for len(queue) > 0 && len(seen) < 400 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || strings.HasPrefix(p, "/events") {
			continue
		}
		seen[p] = true
		resp, body := get(t, f, http.MethodGet, p, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d: %.200s", p, resp.StatusCode, body)
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range href.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
			if err == nil && !seen[u.RequestURI()] {
				queue = append(queue, u.RequestURI())
			}
		}
	}
	if len(seen) < 30 {
		t.Errorf("the crawl reached only %d pages", len(seen))
	}
	if after := gitFiles(t, f.gitDir); !equalMaps(before, after) {
		t.Errorf("the repository changed while pages were read:\nbefore %v\nafter  %v", before, after)
	}
}

// gitFiles lists every file under dir with its size and time.
func gitFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == filepath.Join(dir, "snap", "search") || p == filepath.Join(dir, "snap", "cache", "lines")) {
			return filepath.SkipDir // the search and line indexes, caches the viewer keeps up to date
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = info.ModTime().Format(time.RFC3339Nano) + " " + info.Mode().String() + " " + string(rune(info.Size()%1000))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
