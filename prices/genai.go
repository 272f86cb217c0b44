package prices

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// genAIModel is a model in @pydantic/genai-prices' data (its data.json,
// the list of providers its npm package ships): an id, the names it
// matches, and its prices per million tokens, or a list of dated prices
// of which the newest in effect applies.
type genAIModel struct {
	ID     string          `json:"id"`
	Match  json.RawMessage `json:"match"`
	Prices json.RawMessage `json:"prices"`
	match  matcher
}

type genAIProvider struct {
	ID         string          `json:"id"`
	ModelMatch json.RawMessage `json:"model_match"`
	Models     []genAIModel    `json:"models"`
	match      matcher
}

// genAIFields maps the price keys git-snap keeps, per million tokens, to
// the per-token member of a trimmed copy that each becomes.
var genAIFields = map[string]string{
	"input_mtok":          "input_cost_per_token",
	"output_mtok":         "output_cost_per_token",
	"cache_read_mtok":     "cache_read_input_token_cost",
	"cache_write_mtok":    "cache_creation_input_token_cost",
	"cache_write_1h_mtok": "cache_creation_input_token_cost_above_1hr",
}

// fromGenAIPrices converts genai-prices' providers into the entries a
// trimmed copy keeps, by name. A name is priced the way genai-prices
// prices a bare model name: by the first provider whose model pattern
// it matches (Anthropic's claude-…, OpenAI's gpt-…) and that provider's
// first model that matches it, else by the first provider that lists it.
// The names are every model's id and the names in its match clause (see
// clauseNames). Another provider's price for the same id is kept as
// provider/id. Of a model's dated prices, those in effect on date are
// used.
func fromGenAIPrices(raw json.RawMessage, date string) (map[string]map[string]any, error) {
	var providers []genAIProvider
	if err := json.Unmarshal(raw, &providers); err != nil {
		return nil, fmt.Errorf("not genai-prices' list of providers: %w", err)
	}
	entries := make([][]map[string]any, len(providers)) // by provider, by model; nil: no token price
	var names []string
	listed := map[string][2]int{} // name → the first provider and model listing it
	for i := range providers {
		p := &providers[i]
		p.match = compileMatch(p.ModelMatch)
		entries[i] = make([]map[string]any, len(p.Models))
		for j := range p.Models {
			m := &p.Models[j]
			m.match = compileMatch(m.Match)
			e, err := genAIEntry(m.Prices, date)
			if err != nil {
				return nil, fmt.Errorf("provider %s, model %s: %w", p.ID, m.ID, err)
			}
			if e != nil {
				e["litellm_provider"] = p.ID
			}
			entries[i][j] = e
			for _, n := range append([]string{m.ID}, clauseNames(m.Match)...) {
				if _, seen := listed[n]; n != "" && !seen {
					listed[n] = [2]int{i, j}
					names = append(names, n)
				}
			}
		}
	}
	out := map[string]map[string]any{}
	for _, name := range names {
		if e := pricedAs(providers, entries, name, listed[name]); e != nil {
			out[name] = e
		}
	}
	for i, p := range providers {
		for j, m := range p.Models {
			if e := entries[i][j]; e != nil && m.ID != "" && !sameEntry(out[m.ID], e) {
				out[p.ID+"/"+m.ID] = e
			}
		}
	}
	return out, nil
}

// pricedAs returns the entry genai-prices would price name by (see
// fromGenAIPrices), or nil when that entry has no price per token. first
// locates the first entry that lists name, used when no provider's
// pattern matches.
func pricedAs(providers []genAIProvider, entries [][]map[string]any, name string, first [2]int) map[string]any {
	for i, p := range providers {
		if !p.match(name) {
			continue
		}
		for j, m := range p.Models {
			if m.match(name) {
				return entries[i][j]
			}
		}
	}
	return entries[first[0]][first[1]]
}

// sameEntry reports whether a and b are the same entry.
func sameEntry(a, b map[string]any) bool {
	return a != nil && b != nil && fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b)
}

// genAIEntry converts a model's prices in effect on date into per-token
// members, or returns nil when it has no price per input or output token.
func genAIEntry(raw json.RawMessage, date string) (map[string]any, error) {
	prices, err := pricesOn(raw, date)
	if err != nil || prices == nil {
		return nil, err
	}
	e := map[string]any{}
	for key, field := range genAIFields {
		v, ok := prices[key]
		if !ok {
			continue
		}
		if err := putPrice(e, field, v); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if _, in := e["input_cost_per_token"]; !in {
		if _, out := e["output_cost_per_token"]; !out {
			return nil, nil
		}
	}
	return e, nil
}

// pricesOn picks a model's prices in effect on date: the prices
// themselves, or from a list the last entry whose start date is not
// after date. A time-of-day price is an exception, not the list price,
// so it is skipped.
func pricesOn(raw json.RawMessage, date string) (map[string]json.RawMessage, error) {
	var one map[string]json.RawMessage
	if json.Unmarshal(raw, &one) == nil {
		return one, nil
	}
	var dated []struct {
		Constraint *struct {
			Type      string `json:"type"`
			StartDate string `json:"start_date"`
		} `json:"constraint"`
		Prices map[string]json.RawMessage `json:"prices"`
	}
	if err := json.Unmarshal(raw, &dated); err != nil {
		return nil, fmt.Errorf("prices that are neither an object nor a list of them: %w", err)
	}
	var in map[string]json.RawMessage
	for _, d := range dated {
		switch {
		case d.Constraint == nil:
			in = d.Prices
		case d.Constraint.StartDate != "" && d.Constraint.StartDate <= date:
			in = d.Prices
		}
	}
	return in, nil
}

// putPrice sets the per-token member field of e from a price per million
// tokens. The price is a number, or {base, tiers: [{start, price}]}. A
// tier above a long-context threshold git-snap knows (LiteLLM's 128k,
// 200k, 272k) becomes field_above_…_tokens; other tiers are left out.
func putPrice(e map[string]any, field string, raw json.RawMessage) error {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return putPerToken(e, field, n)
	}
	var tiered struct {
		Base  json.Number `json:"base"`
		Tiers []struct {
			Start int64       `json:"start"`
			Price json.Number `json:"price"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal(raw, &tiered); err != nil {
		return fmt.Errorf("a price that is neither a number nor tiered: %w", err)
	}
	if err := putPerToken(e, field, tiered.Base); err != nil {
		return err
	}
	for _, tier := range tiered.Tiers {
		for _, t := range tiers {
			// a tier "above 271,999" starts where one above 272k does
			if tier.Start == t.tokens || tier.Start == t.tokens-1 {
				if err := putPerToken(e, field+t.suffix, tier.Price); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// putPerToken converts a price per million tokens to its exact per-token
// decimal and stores it in e.
func putPerToken(e map[string]any, field string, perMillion json.Number) error {
	r, ok := new(big.Rat).SetString(string(perMillion))
	if !ok || r.Sign() < 0 {
		return fmt.Errorf("%q is not a price", perMillion)
	}
	r.Quo(r, big.NewRat(1_000_000, 1))
	e[field] = json.Number(decimal(r))
	return nil
}

// decimal formats r, a decimal fraction, exactly and without trailing
// zeros.
func decimal(r *big.Rat) string {
	s := r.FloatString(30)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// matcher is one of genai-prices' match clauses (equals, starts_with,
// ends_with, contains, regex, or, and), parsed once. It tests a name as
// genai-prices does, case-insensitively except for regex. A clause it
// cannot parse, or a regex Go cannot compile, matches nothing.
type matcher func(name string) bool

func compileMatch(raw json.RawMessage) matcher {
	none := func(string) bool { return false }
	var c map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return none
	}
	text := func(k string) (string, bool) {
		var s string
		v, ok := c[k]
		if !ok || json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	folded := func(k string, test func(name, s string) bool) (matcher, bool) {
		s, ok := text(k)
		s = strings.ToLower(s)
		return func(name string) bool { return test(strings.ToLower(name), s) }, ok
	}
	for k, test := range map[string]func(name, s string) bool{
		"equals": func(n, s string) bool { return n == s }, "starts_with": strings.HasPrefix,
		"ends_with": strings.HasSuffix, "contains": strings.Contains,
	} {
		if m, ok := folded(k, test); ok {
			return m
		}
	}
	if expr, ok := text("regex"); ok {
		re, err := regexp.Compile(expr)
		if err != nil {
			return none
		}
		return re.MatchString
	}
	var list []json.RawMessage
	for _, k := range []string{"or", "and"} {
		if v, ok := c[k]; ok && json.Unmarshal(v, &list) == nil && len(list) > 0 {
			subs := make([]matcher, len(list))
			for i, x := range list {
				subs[i] = compileMatch(x)
			}
			if k == "or" {
				return func(n string) bool { return slices.ContainsFunc(subs, func(m matcher) bool { return m(n) }) }
			}
			return func(n string) bool { return !slices.ContainsFunc(subs, func(m matcher) bool { return !m(n) }) }
		}
	}
	return none
}

// clauseNames returns the names that appear in a match clause: those it
// equals, starts with or contains, alone or within an or (a Bedrock
// route's us.anthropic.claude-…, a dotted claude-opus-4.7). Each becomes
// a name of its own, priced as genai-prices prices it.
func clauseNames(raw json.RawMessage) []string {
	var c map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return nil
	}
	for _, k := range []string{"equals", "starts_with", "contains"} {
		var s string
		if v, ok := c[k]; ok && json.Unmarshal(v, &s) == nil {
			return []string{s}
		}
	}
	var list []json.RawMessage
	if v, ok := c["or"]; ok && json.Unmarshal(v, &list) == nil {
		var out []string
		for _, x := range list {
			out = append(out, clauseNames(x)...)
		}
		return out
	}
	return nil
}
