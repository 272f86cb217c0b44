package viewer

import (
	"net/http"
	"strings"
	"testing"
)

// The snapshot page leaves out what show and diff leave out (records
// that are not conversation, git-snap's bookkeeping), by the same rule
// (agent.HideNoise), says so, and shows everything on request.
func TestSnapshotPageLeavesOutNoise(t *testing.T) {
	f := testFixture(t)
	resp, page := get(t, f, http.MethodGet, "/snapshot/short", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !strings.Contains(page, `id="diff-hidden"`) || !strings.Contains(page, "added progress") || !strings.Contains(page, "?all=1") {
		t.Errorf("the page does not say what it left out:\n%s", excerpt(page, "tokens:"))
	}
	if strings.Contains(page, "[2] progress") {
		t.Error("a progress record is listed among the messages")
	}
	_, all := get(t, f, http.MethodGet, "/snapshot/short?all=1", nil)
	if strings.Contains(all, `id="diff-hidden"`) || !strings.Contains(all, "progress") || len(all) <= len(page) {
		t.Errorf("?all=1 does not show everything")
	}
}

// excerpt is the part of page around what, for a failure's message.
func excerpt(page, what string) string {
	i := max(0, strings.Index(page, what)-400)
	return page[i:min(len(page), i+1200)]
}
