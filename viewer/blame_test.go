package viewer

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The blame page marks each line of a file with the session and turn
// that wrote it, or the person, and links each agent's line to its turn
// in the session's timeline.
func TestBlamePage(t *testing.T) {
	f := testFixture(t)
	resp, body := get(t, f, "GET", "/blame/login.go", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d\n%s", resp.StatusCode, body)
	}
	rows := regexp.MustCompile(`(?s)<tr id="L(\d+)" class="([^"]*)">.*?<td class="who">(.*?)</td>`).FindAllStringSubmatch(body, -1)
	if len(rows) != 11 {
		t.Fatalf("%d lines, want 11\n%s", len(rows), body)
	}
	want := map[string]string{"1": "turn-1", "4": "turn-1", "9": "turn-2", "11": "turn-2"}
	for _, r := range rows {
		n, class, who := r[1], r[2], r[3]
		switch {
		case n == "10":
			if !strings.Contains(class, "person") || !strings.Contains(who, "Ada") {
				t.Errorf("line 10, the person's: class %q, who %q", class, who)
			}
		case want[n] != "":
			if !strings.Contains(class, "agent") || !strings.Contains(who, `href="/session/code#`+want[n]+`"`) || !strings.Contains(who, `title="`) {
				t.Errorf("line %s: class %q, who %q: want the agent's, linked to %s", n, class, who, want[n])
			}
		}
	}
	for _, s := range []string{"write the login", "add a logout", "11 lines: 10 by agents, 1 by people", `href="/snapshot/`} {
		if !strings.Contains(body, s) {
			t.Errorf("the page does not say %q", s)
		}
	}
	// A file an agent captured that the code does not hold, a revision
	// that names no commit: the page says so.
	for path, want := range map[string]string{"/blame/nosuch.go": "nosuch.go is not in HEAD", "/blame/login.go?rev=nosuch": "nosuch names no commit"} {
		if resp, body := get(t, f, "GET", path, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, want) || strings.Contains(body, `class="source blame"`) {
			t.Errorf("%s: status %d\n%s", path, resp.StatusCode, body)
		}
	}
	if _, body := get(t, f, "GET", "/files/code", nil); !strings.Contains(body, `href="/blame/login.go"`) {
		t.Errorf("the files page does not lead to the blame page\n%s", body)
	}
}

// In a browser: the page shows with no error, and a line's link opens
// the session's timeline at the turn that wrote it. The screenshot is a
// file of the long real session, written over two turns, with a
// person's line.
func TestBrowserBlame(t *testing.T) {
	tb := newTab(t)
	tb.open(t, "/blame/lib/spotter_web/live/transcript_computers.ex")
	tb.waitFor(t, `document.querySelectorAll("#blame tr.agent").length > 50`)
	tb.shootWith(t, "blame", chromedp.FullScreenshot(100))
	tb.clean(t)
	tb.open(t, "/blame/login.go")
	tb.clean(t)
	tb.submit(t, `#L9 td.who a`, "/session/code#turn-2")
	tb.waitFor(t, `document.getElementById("turn-2") !== null`)
	if text := eval[string](t, tb, `document.getElementById("turn-2").textContent`); !strings.Contains(text, "add a logout") {
		t.Errorf("turn 2 of the timeline says %.200q", text)
	}
	tb.clean(t)
}
