package cmdline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
)

// TestPullCountsSessionsUpToDate: a pull from a remote of many sessions
// prints what moved and counts the rest; a few up to date are named.
func TestPullCountsSessionsUpToDate(t *testing.T) {
	for _, tc := range []struct {
		upToDate int
		want     []string
		not      string
	}{
		{3, []string{"moved: created", "s2: up to date"}, "sessions up to date"},
		{11, []string{"moved: created", "11 sessions up to date"}, "s2: up to date"},
	} {
		res := []gitstore.PullResult{{Session: "moved", Action: gitstore.PullCreated}}
		for i := range tc.upToDate {
			res = append(res, gitstore.PullResult{Session: fmt.Sprintf("s%d", i), Action: gitstore.PullUpToDate})
		}
		var b strings.Builder
		printPull(&b, res)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%d up to date: output lacks %q:\n%s", tc.upToDate, w, b.String())
			}
		}
		if strings.Contains(b.String(), tc.not) {
			t.Errorf("%d up to date: output has %q:\n%s", tc.upToDate, tc.not, b.String())
		}
	}
}
