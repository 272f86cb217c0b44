package viewer

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const subagentFile = "../testdata/claude-code/" + longSession + "/subagents/agent-a2898e3.jsonl"

// subagentRef reads the subagent's transcript as the test's reference:
// its tool_use blocks, and a line of its text answers to search for.
func subagentRef(t *testing.T) (uses int, phrase string) {
	t.Helper()
	for _, r := range rawRecords(t, subagentFile) {
		msg, _ := r["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			b, _ := b.(map[string]any)
			switch b["type"] {
			case "tool_use":
				uses++
			case "text":
				if text, _ := b["text"].(string); phrase == "" && r["type"] == "assistant" && len(text) > 30 && !strings.ContainsAny(text[:30], "*`_[<\n") {
					phrase = text[:30]
				}
			}
		}
	}
	if phrase == "" {
		t.Fatal("the subagent's transcript has no answer to search for")
	}
	return uses, phrase
}

// The subagent a Task call ran shows folded right after that call, with
// every tool call of its own; a search hit inside it unfolds it.
func TestBrowserSubagentNested(t *testing.T) {
	tb := newTab(t)
	uses, phrase := subagentRef(t)
	tb.open(t, "/session/"+longSession)
	const sub = `document.getElementById("subagent-a2898e3")`
	if open := eval[bool](t, tb, sub+`.open`); open {
		t.Error("the subagent's thread is open at first, want it folded")
	}
	if prev := eval[string](t, tb, sub+`.previousElementSibling.dataset.tool`); prev != "Task" {
		t.Errorf("the subagent follows a %q entry, want its Task call", prev)
	}
	if n := eval[int](t, tb, sub+`.querySelectorAll("details.tool-call").length`); n != uses {
		t.Errorf("the subagent shows %d tool calls, want %d (its transcript's tool_use blocks)", n, uses)
	}
	tb.do(t, chromedp.Click(`#subagent-a2898e3 > summary`))
	if !eval[bool](t, tb, sub+`.open`) {
		t.Error("a click on the subagent's summary does not unfold it")
	}
	tb.shoot(t, "subagent")

	tb.open(t, "/search?q="+url.QueryEscape(phrase)+"&session="+longSession)
	href := eval[string](t, tb, `document.querySelector("#hits li.hit a.where").getAttribute("href")`)
	if !strings.Contains(href, "#msg-") {
		t.Fatalf("searching the subagent's answer %q gives no message link: %q", phrase, href)
	}
	tb.open(t, href)
	tb.waitFor(t, `document.querySelector("#timeline .current") !== null`)
	if !eval[bool](t, tb, sub+`.open`) || !eval[bool](t, tb, sub+`.contains(document.querySelector("#timeline .current"))`) {
		t.Error("the link to the subagent's answer does not land inside its unfolded thread")
	}
	if got := eval[string](t, tb, `document.querySelector("#timeline .current").textContent`); !strings.Contains(got, phrase) {
		t.Errorf("the link landed on %.200q, want the answer with %q", got, phrase)
	}
	tb.clean(t)
}
