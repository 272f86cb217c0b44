package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/prices"
)

// CostText says what a cost estimate is, in one line.
func CostText(c *prices.Cost) string {
	if c == nil {
		return ""
	}
	text := fmt.Sprintf("%s (estimate at list prices of %s)", prices.MicrosText(c.Micros), c.PricesDate)
	if len(c.Unknown) > 0 {
		names := slices.Clone(c.Unknown)
		for i, n := range names {
			if n == "" {
				names[i] = "calls naming no model"
			}
		}
		text += fmt.Sprintf("; no price for %s, not included", strings.Join(names, ", "))
	}
	return text
}
