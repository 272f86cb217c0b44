package prices

import (
	"math"
	"slices"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// Costs: each token kind at its price, a model's dated name at its
// undated price, the configuration's prices over the table, and a model
// with no price named instead of guessed at.
func TestEstimateCost(t *testing.T) {
	by := map[string]snapshot.Usage{
		"claude-sonnet-4-5-20250929": {Input: 1e6, CacheRead: 1e6, CacheWrite: 1e6, Output: 1e6},
		"gpt-5.5":                    {Input: 2e6},
		"house-model":                {Output: 1e6},
		"":                           {Output: 10},
		"empty":                      {},
	}
	c := Estimate(by, map[string]Price{"gpt-5.5": {Input: 1}})
	if want := 3 + 0.30 + 3.75 + 15 + 2.0; math.Abs(c.USD-want) > 1e-9 {
		t.Errorf("cost $%v, want $%v", c.USD, want)
	}
	if !slices.Equal(c.Unknown, []string{"", "house-model"}) {
		t.Errorf("unknown %q", c.Unknown)
	}
}
