package prices

import (
	"sort"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// Price is what a model's tokens cost, in US dollars per million tokens
// of each kind.
type Price struct {
	Input      float64 `json:"input"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Output     float64 `json:"output"`
}

// Date is when the list prices in Table were taken, and
// Source where from. Table change; a cost computed from them is an
// estimate, and config's prices section adds or overrides models.
const (
	Date   = "2026-11-22"
	Source = "list prices of the vendors' public pricing pages (claude.com/pricing, openai.com/api/pricing), standard tier, 5-minute cache writes, as reported by secondary summaries of them"
)

// Table are the list prices of the models agents use, by model name
// without a date suffix. OpenAI's prompt cache has no write price: it
// writes none.
var Table = map[string]Price{
	// Claude Code 2.1.328's default model: the price its own model
	// catalog gives it (pricing tier_4_20_cache_read_0_20), which its
	// total_cost_usd uses.
	"claude-opus-5-5":   {Input: 4, CacheWrite: 5, CacheRead: 0.20, Output: 20},
	"claude-opus-4-6":   {Input: 5, CacheWrite: 6.25, CacheRead: 0.50, Output: 25},
	"claude-opus-4-5":   {Input: 5, CacheWrite: 6.25, CacheRead: 0.50, Output: 25},
	"claude-opus-4-1":   {Input: 15, CacheWrite: 18.75, CacheRead: 1.50, Output: 75},
	"claude-opus-4":     {Input: 15, CacheWrite: 18.75, CacheRead: 1.50, Output: 75},
	"claude-sonnet-4-6": {Input: 3, CacheWrite: 3.75, CacheRead: 0.30, Output: 15},
	"claude-sonnet-4-5": {Input: 3, CacheWrite: 3.75, CacheRead: 0.30, Output: 15},
	"claude-sonnet-4":   {Input: 3, CacheWrite: 3.75, CacheRead: 0.30, Output: 15},
	"claude-haiku-4-5":  {Input: 1, CacheWrite: 1.25, CacheRead: 0.10, Output: 5},
	"gpt-5.5":           {Input: 5, CacheRead: 0.50, Output: 30},
	"gpt-5.4":           {Input: 2.50, CacheRead: 0.25, Output: 15},
	"gpt-5.3-codex":     {Input: 1.75, CacheRead: 0.175, Output: 14},
	"gpt-5.2-codex":     {Input: 1.75, CacheRead: 0.175, Output: 14},
	"gpt-5.2":           {Input: 1.75, CacheRead: 0.175, Output: 14},
	"gpt-5.1-codex-max": {Input: 1.25, CacheRead: 0.125, Output: 10},
	"gpt-5.1-codex":     {Input: 1.25, CacheRead: 0.125, Output: 10},
	"gpt-5.1":           {Input: 1.25, CacheRead: 0.125, Output: 10},
	"gpt-5-codex":       {Input: 1.25, CacheRead: 0.125, Output: 10},
	"gpt-5":             {Input: 1.25, CacheRead: 0.125, Output: 10},
}

// Cost is an estimate of what a session's tokens cost at list prices:
// prices change, and it is not the bill.
type Cost struct {
	Estimate   bool   `json:"estimate"`    // always true, for scripts that read the JSON
	PricesDate string `json:"prices_date"` // when the prices were taken
	// USD is the cost of the tokens of the models with a price.
	USD float64 `json:"usd"`
	// Unknown lists the models with tokens and no price ("" for calls
	// that name no model): their tokens are not in USD.
	Unknown []string `json:"unknown_models,omitempty"`
}

// dateSuffix is the release date some model names end in
// (claude-sonnet-4-5-20250929); prices are listed without it.
var dateSuffix = lazy.Regexp(`-\d{8}$`)

// Estimate prices the tokens of each model with Table, overridden
// and added to by extra (from the user's configuration). A model with no
// price is listed as unknown rather than guessed at.
func Estimate(byModel map[string]snapshot.Usage, extra map[string]Price) Cost {
	c := Cost{Estimate: true, PricesDate: Date}
	for model, u := range byModel {
		if u == (snapshot.Usage{}) {
			continue
		}
		p, ok := priceOf(model, extra)
		if !ok {
			c.Unknown = append(c.Unknown, model)
			continue
		}
		c.USD += (float64(u.Input)*p.Input + float64(u.CacheRead)*p.CacheRead +
			float64(u.CacheWrite)*p.CacheWrite + float64(u.Output)*p.Output) / 1e6
	}
	sort.Strings(c.Unknown)
	return c
}

func priceOf(model string, extra map[string]Price) (Price, bool) {
	for _, name := range []string{model, dateSuffix().ReplaceAllString(model, "")} {
		if p, ok := extra[name]; ok {
			return p, true
		}
		if p, ok := Table[name]; ok && name != "" {
			return p, true
		}
	}
	return Price{}, false
}
