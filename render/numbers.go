package render

import (
	"fmt"
	"slices"
	"strconv"
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

// Thousands writes n with a comma between each three digits: 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ShortCost is a cost for a table's cell: $1.23, with "+?" when some
// model's tokens have no price.
func ShortCost(c prices.Cost) string {
	s := prices.MicrosText(c.Micros)
	if len(c.Unknown) > 0 {
		s += "+?"
	}
	return s
}
