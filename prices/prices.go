// Package prices estimates what tokens cost. It uses the list prices of
// models from a maintained dataset (@pydantic/genai-prices' data;
// LiteLLM's model_prices_and_context_window.json works too): a dated copy
// is embedded, the user may keep a newer copy (git snap prices update),
// and the user's own prices from config take precedence over both.
//
// Money is exact. Prices are read from the dataset's decimals and kept
// in attodollars (1e-18 USD) per token, sums are integers, and a cost is
// rounded once, to the micro-dollar.
package prices

import (
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// Price is what a model's tokens cost, in US dollars per million tokens
// of each kind, in the shape of config's prices: section. A one-hour
// cache write costs twice the input, as Anthropic lists it.
type Price struct {
	Input      float64 `json:"input"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Output     float64 `json:"output"`
}

// Date is when the embedded dataset was taken, and Source where it was
// taken from. A cost computed from it is an estimate: prices change, and
// config's prices section or git snap prices update supply newer ones.
const (
	Date   = "2026-09-23"
	Source = "@pydantic/genai-prices 0.1.8 (npm, published 2026-09-23; github.com/pydantic/genai-prices, MIT License), trimmed to the models priced per token"
)

// Rates are one price tier of a model, exact, in attodollars (1e-18 US
// dollars) per token.
type Rates struct {
	Input, CacheRead, CacheWrite, CacheWrite1h, Output int64
}

// Model holds what a model's tokens cost.
type Model struct {
	// Key is the name it is listed under (a dataset key, a config name).
	Key string
	// From says where the price comes from: "config", or the dataset's
	// date.
	From string
	Base Rates
	// Threshold, when not 0, starts the long-context tier: a call whose
	// prompt (input, cache reads and writes) is over it has all its tokens
	// priced at Long.
	Threshold int64
	Long      Rates
}

// Prices is the table costs are estimated with: the user's prices, which
// take precedence, and a dataset.
type Prices struct {
	data      *Dataset
	overrides map[string]Model
	mu        sync.Mutex
	cache     map[string]lookup
}

type lookup struct {
	m  Model
	ok bool
}

// New returns the prices of data (nil means the embedded dataset), with
// the user's prices taking precedence.
func New(data *Dataset, overrides map[string]Price) *Prices {
	if data == nil {
		data = Embedded()
	}
	p := &Prices{data: data, overrides: map[string]Model{}, cache: map[string]lookup{}}
	for name, pr := range overrides {
		p.overrides[name] = pr.model(name, "config")
	}
	return p
}

// Default returns the prices of the embedded dataset alone.
func Default() *Prices { return New(nil, nil) }

// Date returns the date of the dataset the prices come from.
func (p *Prices) Date() string { return p.data.Date }

// Source returns where the dataset comes from.
func (p *Prices) Source() string { return p.data.Source }

// attoPerMillion converts dollars per million tokens into attodollars
// per token, exactly, using the float's shortest decimal form.
func attoPerMillion(v float64) int64 {
	r, ok := new(big.Rat).SetString(big.NewFloat(v).Text('g', -1))
	if !ok {
		return 0
	}
	return ratToInt(r.Mul(r, big.NewRat(1e12, 1)))
}

// ratToInt rounds r half away from zero.
func ratToInt(r *big.Rat) int64 {
	n, d := new(big.Int).Set(r.Num()), r.Denom()
	n.Mul(n, big.NewInt(2))
	n.Add(n, d)
	n.Quo(n, new(big.Int).Mul(d, big.NewInt(2)))
	return n.Int64()
}

func (pr Price) model(key, from string) Model {
	r := Rates{
		Input: attoPerMillion(pr.Input), CacheRead: attoPerMillion(pr.CacheRead), CacheWrite: attoPerMillion(pr.CacheWrite),
		Output: attoPerMillion(pr.Output),
	}
	r.CacheWrite1h = oneHourWrite(r)
	return Model{Key: key, From: from, Base: r}
}

// oneHourWrite is the price of a cache write kept for an hour where a
// list gives none: Anthropic's, twice the input, for a model whose cache
// writes are priced at all. Others (OpenAI's) do not bill cache writes,
// and showing them a one-hour price would be made up.
func oneHourWrite(r Rates) int64 {
	if r.CacheWrite == 0 {
		return 0
	}
	return 2 * r.Input
}

// Patterns for what agents and gateways add around the name a price
// list knows a model by (see Candidates).
var (
	// dateSuffix is the release date some names end in
	// (claude-sonnet-4-5-20250929, Vertex's claude-sonnet-4-5@20250929).
	dateSuffix = lazy.Regexp(`[-@]\d{8}$`)
	// bedrockVersion is the version Bedrock ids end in (-v1:0).
	bedrockVersion = lazy.Regexp(`-v\d+(:\d+)?$`)
	// bracketSuffix is a context marker (claude-opus-4-6[1m]).
	bracketSuffix = lazy.Regexp(`\[[^\]]*\]$`)
	// dottedVersion is a version written with a dot (Copilot CLI's
	// claude-sonnet-4.6 for claude-sonnet-4-6).
	dottedVersion = lazy.Regexp(`(\d)\.(\d)`)
	// deployment is a name given to a model's deployment before the
	// model's own (an Azure deployment aide-gpt-5, my-claude-opus-4-7).
	deployment = lazy.Regexp(`^[a-z0-9_]+(?:-[a-z0-9_]+)*?-((?:gpt|claude|gemini|grok|o[134])(?:-|$).*)$`)
)

// routePrefixes are prefixes that say where a model was called:
// bedrock/converse/…, vertex_ai/…, or the vendor (anthropic/…).
var routePrefixes = []string{
	"bedrock/", "converse/", "invoke/", "vertex_ai/", "vertex/", "anthropic/", "openai/", "azure/", "gemini/",
	"google/", "models/",
}

// regionPrefixes are the region and vendor prefixes of a Bedrock
// inference profile (us.anthropic.…, global.anthropic.…).
var regionPrefixes = []string{"us.", "eu.", "apac.", "jp.", "au.", "ca.", "global.", "anthropic."}

// Candidates returns the names a model is looked up by, in order, from
// the name as recorded to the list's plain name: lower case; without a
// context marker ([1m]); without where it was called (bedrock/converse/,
// vertex_ai/); without a Bedrock version (-v1:0), then without its region
// and vendor (us.anthropic.); without a release date; with hyphens for a
// dotted version (claude-sonnet-4.6); with -preview, which Gemini CLI
// leaves off the preview models it records (gemini-3-pro); and last
// without a deployment's own name before the model's (aide-gpt-5). This
// is the only place that interprets such names.
func Candidates(model string) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(model)
	s := strings.ToLower(strings.TrimSpace(model))
	add(s)
	s = bracketSuffix().ReplaceAllString(s, "")
	add(s)
	s = cutPrefixes(s, routePrefixes, add)
	if v := bedrockVersion().ReplaceAllString(s, ""); v != s {
		s = v
		add(s)
	}
	s = cutPrefixes(s, regionPrefixes, add)
	if v := dateSuffix().ReplaceAllString(s, ""); v != s {
		add(strings.Replace(s, "@", "-", 1))
		add(v)
		s = v
	}
	if v := dottedVersion().ReplaceAllString(s, "$1-$2"); v != s {
		s = v
		add(s)
	}
	if strings.HasPrefix(s, "gemini-") && !strings.HasSuffix(s, "-preview") {
		add(s + "-preview")
	}
	if m := deployment().FindStringSubmatch(s); m != nil {
		for _, c := range Candidates(m[1]) {
			add(c)
		}
	}
	return out
}

// cutPrefixes removes prefixes from s while one matches, calling add
// with each name that remains.
func cutPrefixes(s string, prefixes []string, add func(string)) string {
	for changed := true; changed; {
		changed = false
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
				s, changed = rest, true
				add(s)
			}
		}
	}
	return s
}

// Lookup finds a model's price: the user's price for any of its
// Candidates, else the dataset's.
func (p *Prices) Lookup(model string) (Model, bool) {
	if model == "" {
		return Model{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.cache[model]; ok {
		return l.m, l.ok
	}
	m, ok := p.find(model)
	p.cache[model] = lookup{m, ok}
	return m, ok
}

func (p *Prices) find(model string) (Model, bool) {
	names := Candidates(model)
	for _, n := range names {
		if m, ok := p.overrides[n]; ok {
			return m, true
		}
	}
	for _, n := range names {
		if m, ok := p.data.model(n); ok {
			return m, true
		}
	}
	return Model{}, false
}

// Cost is an estimate of what tokens cost at list prices. Prices change,
// and it is not the bill.
type Cost struct {
	Estimate   bool   `json:"estimate"`    // always true, for scripts that read the JSON
	PricesDate string `json:"prices_date"` // when the prices were taken
	// Micros is the cost of the tokens of the models with a price, in
	// millionths of a US dollar, rounded half up once from the exact sum.
	Micros int64 `json:"usd_micros"`
	// USD is Micros in dollars.
	USD float64 `json:"usd"`
	// Unknown lists the models with tokens but no price ("" for calls
	// that name no model). Their tokens are not counted in USD.
	Unknown []string `json:"unknown_models,omitempty"`
}

// Estimate prices the tokens of each model. A model with no price is
// listed as unknown rather than guessed at.
func (p *Prices) Estimate(byModel map[string]snapshot.Usage) Cost {
	c := Cost{Estimate: true, PricesDate: p.Date()}
	total := new(big.Int)
	for _, model := range slices.Sorted(mapsKeys(byModel)) {
		u := byModel[model]
		if u.Total() == 0 {
			continue
		}
		m, ok := p.Lookup(model)
		if !ok {
			c.Unknown = append(c.Unknown, model)
			continue
		}
		total.Add(total, m.Atto(u))
	}
	c.Micros = microsOf(total)
	c.USD = float64(c.Micros) / 1e6
	return c
}

// Atto returns what u costs at m's prices, in attodollars. Tokens of
// calls over the long-context threshold are priced at the long-context
// rates, and one-hour cache writes at their own rate.
func (m Model) Atto(u snapshot.Usage) *big.Int {
	sum := new(big.Int)
	base := u
	for i, t := range snapshot.LongContext {
		part := u.Long[i]
		if part == (snapshot.Tokens{}) {
			continue
		}
		base = base.Less(part)
		if m.Threshold > 0 && t >= m.Threshold {
			addTokens(sum, part, m.Long)
		} else {
			addTokens(sum, part, m.Base)
		}
	}
	addTokens(sum, base.Kinds(), m.Base)
	return sum
}

func addTokens(sum *big.Int, t snapshot.Tokens, r Rates) {
	for _, x := range [][2]int64{
		{t.Input, r.Input}, {t.CacheRead, r.CacheRead}, {t.CacheWrite - t.CacheWrite1h, r.CacheWrite},
		{t.CacheWrite1h, r.CacheWrite1h}, {t.Output, r.Output},
	} {
		if x[0] != 0 && x[1] != 0 {
			sum.Add(sum, new(big.Int).Mul(big.NewInt(x[0]), big.NewInt(x[1])))
		}
	}
}

// microsOf rounds attodollars to micro-dollars, half up.
func microsOf(atto *big.Int) int64 {
	const perMicro = 1_000_000_000_000
	q := new(big.Int).Add(atto, big.NewInt(perMicro/2))
	return q.Quo(q, big.NewInt(perMicro)).Int64()
}

// MicrosText formats micro-dollars as dollars with cents, rounded half
// up: $12.35.
func MicrosText(micros int64) string {
	cents := (micros + 5_000) / 10_000
	return "$" + big.NewInt(cents/100).String() + "." + twoDigits(cents%100)
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + big.NewInt(n).String()
	}
	return big.NewInt(n).String()
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
