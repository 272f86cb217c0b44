package gitstore

import (
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestFilterMatch(t *testing.T) {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	e := Entry{ID: plumbing.NewHash("1111111111111111111111111111111111111111"),
		Header: snapshot.Header{Time: at, Label: "PostToolUse Edit", Code: "4f1c2d3e"}}
	other := plumbing.NewHash("2222222222222222222222222222222222222222")
	for _, c := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"zero selects all", Filter{}, true},
		{"since before", Filter{Since: at.Add(-time.Hour)}, true},
		{"since at", Filter{Since: at}, true},
		{"since after", Filter{Since: at.Add(time.Second)}, false},
		{"until after", Filter{Until: at.Add(time.Hour)}, true},
		{"until before", Filter{Until: at.Add(-time.Second)}, false},
		{"label glob", Filter{Label: "PostToolUse *"}, true},
		{"label other", Filter{Label: "Stop"}, false},
		{"carried", Filter{Carried: map[plumbing.Hash]bool{e.ID: true}}, true},
		{"not carried", Filter{Carried: map[plumbing.Hash]bool{other: true}}, false},
		{"empty carried set selects none", Filter{Carried: map[plumbing.Hash]bool{}}, false},
		{"code prefix", Filter{Code: "4f1c"}, true},
		{"code other", Filter{Code: "4f1d"}, false},
		{"all at once", Filter{Since: at, Until: at, Label: "*Edit", Code: "4f1c2d3e", Carried: map[plumbing.Hash]bool{e.ID: true}}, true},
		{"all but one", Filter{Since: at, Until: at, Label: "*Edit", Code: "4f1c2d3f"}, false},
	} {
		if got := c.f.Match(e); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}
