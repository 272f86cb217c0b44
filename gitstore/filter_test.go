package gitstore

import (
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

func TestFilterMatch(t *testing.T) {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	e := storage.Entry{ID: storage.NewID("1111111111111111111111111111111111111111"),
		Header: snapshot.Header{Time: at, Label: "PostToolUse Edit", Code: "4f1c2d3e"}}
	other := storage.NewID("2222222222222222222222222222222222222222")
	for _, c := range []struct {
		name string
		f    storage.Filter
		want bool
	}{
		{"zero selects all", storage.Filter{}, true},
		{"since before", storage.Filter{Since: at.Add(-time.Hour)}, true},
		{"since at", storage.Filter{Since: at}, true},
		{"since after", storage.Filter{Since: at.Add(time.Second)}, false},
		{"until after", storage.Filter{Until: at.Add(time.Hour)}, true},
		{"until before", storage.Filter{Until: at.Add(-time.Second)}, false},
		{"label glob", storage.Filter{Label: "PostToolUse *"}, true},
		{"label other", storage.Filter{Label: "Stop"}, false},
		{"carried", storage.Filter{Carried: map[storage.ID]bool{e.ID: true}}, true},
		{"not carried", storage.Filter{Carried: map[storage.ID]bool{other: true}}, false},
		{"empty carried set selects none", storage.Filter{Carried: map[storage.ID]bool{}}, false},
		{"code prefix", storage.Filter{Code: "4f1c"}, true},
		{"code other", storage.Filter{Code: "4f1d"}, false},
		{"all at once", storage.Filter{Since: at, Until: at, Label: "*Edit", Code: "4f1c2d3e", Carried: map[storage.ID]bool{e.ID: true}}, true},
		{"all but one", storage.Filter{Since: at, Until: at, Label: "*Edit", Code: "4f1c2d3f"}, false},
	} {
		if got := c.f.Match(e); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}
