package prices

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// Costs: each token kind at its price, a model's dated name at its
// undated price, the configuration's prices over the dataset, and a
// model with no price named instead of guessed at. Dollars here are the
// dataset's (genai-prices, 2026-09-23) list prices, worked out by hand.
func TestEstimateCost(t *testing.T) {
	by := map[string]snapshot.Usage{
		// $3 in, $0.30 cache read, $3.75 5-minute write, $15 out per million
		"claude-sonnet-4-5-20250929": {Input: 1e6, CacheRead: 1e6, CacheWrite: 1e6, Output: 1e6},
		"gpt-5.5":                    {Input: 2e6},
		"house-model":                {Output: 1e6},
		"":                           {Output: 10},
		"empty":                      {},
	}
	c := New(nil, map[string]Price{"gpt-5.5": {Input: 1}}).Estimate(by)
	if want := int64((3 + 0.30 + 3.75 + 15 + 2.0) * 1e6); c.Micros != want || c.USD != float64(want)/1e6 {
		t.Errorf("cost %d µ$ ($%v), want %d", c.Micros, c.USD, want)
	}
	if !slices.Equal(c.Unknown, []string{"", "house-model"}) {
		t.Errorf("unknown %q", c.Unknown)
	}
	if c.PricesDate != Date {
		t.Errorf("prices date %q", c.PricesDate)
	}
}

// One-hour cache writes cost what the dataset says (claude-opus-4-6: $10
// a million), or twice the input where it says nothing
// (claude-sonnet-4-5: $6), as ccusage counts them; 5-minute writes the
// cache write price.
func TestOneHourCacheWrites(t *testing.T) {
	p := Default()
	for _, tc := range []struct {
		model string
		u     snapshot.Usage
		want  int64
	}{
		{"claude-opus-4-6", snapshot.Usage{CacheWrite: 3e6, CacheWrite1h: 1e6}, 2*6_250_000 + 10_000_000},
		{"claude-sonnet-4-5-20250929", snapshot.Usage{CacheWrite: 1e6, CacheWrite1h: 1e6}, 6_000_000},
		{"claude-haiku-4-5-20251001", snapshot.Usage{CacheWrite: 2e6, CacheWrite1h: 1e6}, 1_250_000 + 2_000_000},
	} {
		if c := p.Estimate(map[string]snapshot.Usage{tc.model: tc.u}); c.Micros != tc.want || len(c.Unknown) > 0 {
			t.Errorf("%s: %d µ$, want %d (%v)", tc.model, c.Micros, tc.want, c.Unknown)
		}
	}
}

// A call whose prompt is over a model's long-context threshold has all
// its tokens priced at that tier (claude-sonnet-4-5 above 200k: $6 in,
// $22.50 out); one under it, or over a lower threshold only, at the base.
func TestLongContextTier(t *testing.T) {
	p := Default()
	long := snapshot.Usage{Input: 250_000, Output: 1_000}.OfCall()
	short := snapshot.Usage{Input: 150_000, Output: 1_000}.OfCall() // over 128k, not over 200k
	var both snapshot.Usage
	both.Add(long)
	both.Add(short)
	c := p.Estimate(map[string]snapshot.Usage{"claude-sonnet-4-5": both})
	want := int64(250_000*6+1_000*22.5) + int64(150_000*3+1_000*15)
	if c.Micros != want {
		t.Errorf("%d µ$, want %d", c.Micros, want)
	}
	if long.Long[1] == (snapshot.Tokens{}) || short.Long[0] == (snapshot.Tokens{}) {
		t.Errorf("parts: %+v %+v", long.Long, short.Long)
	}
}

// Sums are exact: a million calls of a token at $0.30 a million is $0.30,
// where float64 sums drift, and the same usage gives the same digits.
func TestExactSums(t *testing.T) {
	p := Default()
	by := map[string]snapshot.Usage{}
	for _, m := range []string{"claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5.3-codex", "claude-opus-4-6"} {
		by[m] = snapshot.Usage{Input: 333_333, CacheRead: 1_000_001, CacheWrite: 7, Output: 99_999}
	}
	first := p.Estimate(by)
	for range 50 {
		if c := p.Estimate(by); c.Micros != first.Micros {
			t.Fatalf("%d then %d", first.Micros, c.Micros)
		}
	}
	one := p.Estimate(map[string]snapshot.Usage{"claude-sonnet-4-5": {CacheRead: 1}})
	if one.Micros != 0 { // 0.3 µ$ rounds to 0
		t.Errorf("%d", one.Micros)
	}
	if MicrosText(12_345_678) != "$12.35" || MicrosText(4_999) != "$0.00" || MicrosText(5_000) != "$0.01" {
		t.Error(MicrosText(12_345_678), MicrosText(4_999), MicrosText(5_000))
	}
}

// Names as agents and gateways write them find the dataset's entries:
// the one mapping of names (Candidates), each way a name is written.
func TestLookupNames(t *testing.T) {
	p := Default()
	for _, c := range []struct{ name, key, provider string }{
		{"claude-opus-4-6", "claude-opus-4-6", "anthropic"},
		{"claude-opus-4-7", "claude-opus-4-7", "anthropic"},
		// a context marker
		{"claude-opus-4-6[1m]", "claude-opus-4-6", "anthropic"},
		// case and a release date
		{"Claude-Sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", "anthropic"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001", "anthropic"},
		// where it was called: a Bedrock route, its region, its version
		{"converse/us.anthropic.claude-haiku-4-5-20251001-v1:0", "us.anthropic.claude-haiku-4-5-20251001", "aws"},
		{"bedrock/converse/anthropic.claude-haiku-4-5-20251001-v1:0", "anthropic.claude-haiku-4-5-20251001", "aws"},
		{"vertex_ai/claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929", "anthropic"},
		{"anthropic/claude-opus-4-7", "claude-opus-4-7", "anthropic"},
		{"models/gemini-2.5-pro", "gemini-2.5-pro", "google"},
		// dotted versions, as Copilot CLI writes them
		{"claude-sonnet-4.6", "claude-sonnet-4.6", "anthropic"},
		{"claude-opus-4.7", "claude-opus-4.7", "anthropic"},
		{"claude-sonnet-4.5", "claude-sonnet-4.5", "anthropic"},
		{"Claude-Opus-4.6-20260205", "claude-opus-4.6", "anthropic"},
		// a deployment's name before the model's
		{"aide-gpt-5", "gpt-5", "openai"},
		{"team-a-claude-opus-4-7", "claude-opus-4-7", "anthropic"},
		// Gemini CLI leaves -preview off
		{"gemini-3-pro", "gemini-3-pro-preview", "google"},
		{"gemini-3.1-pro-preview", "gemini-3.1-pro-preview", "google"},
		{"gemini-2.5-pro", "gemini-2.5-pro", "google"},
		{"gpt-4.1", "gpt-4.1", "openai"},
		{"gpt-5.3-codex", "gpt-5.3-codex", "openai"},
		{"claude-opus-5-5", "claude-opus-5-5", "anthropic"},
	} {
		m, ok := p.Lookup(c.name)
		if !ok || m.Key != c.key || m.From != Date {
			t.Errorf("%s: found %q from %q (%v), want %q; candidates %q", c.name, m.Key, m.From, ok, c.key, Candidates(c.name))
		}
		if got := Embedded().provider(m.Key); got != c.provider {
			t.Errorf("%s: priced as %s's %s, want %s's", c.name, got, m.Key, c.provider)
		}
	}
	for _, name := range []string{"house-model", "", "gpt", "claude"} {
		if m, ok := p.Lookup(name); ok {
			t.Errorf("%s priced as %+v", name, m)
		}
	}
}

// Trim keeps what costs are computed from, one model a line, and reads
// its own output back to the same bytes.
func TestTrimIsStable(t *testing.T) {
	again, n, err := Trim(bytes.NewReader(embedded), Date, Source)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, embedded) {
		t.Error("trimming the embedded copy changes it")
	}
	if n != Embedded().Len() || n < 1500 {
		t.Errorf("%d models, index %d", n, Embedded().Len())
	}
	whole := `{"sample_spec": {"input_cost_per_token": 0, "mode": "one of: chat"},
	  "m-chat": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "mode": "chat", "max_tokens": 10, "input_cost_per_token_batches": 5e-07},
	  "m-image": {"output_cost_per_image": 0.04, "mode": "image_generation"}}`
	out, n, err := Trim(strings.NewReader(whole), "2026-01-02", "test")
	if err != nil || n != 1 || !bytes.Contains(out, []byte(`"m-chat": {"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}`)) {
		t.Errorf("%d %v\n%s", n, err, out)
	}
	d, err := ParseDataset(out)
	if err != nil || d.Date != "2026-01-02" || d.Source != "test" || d.Len() != 1 {
		t.Errorf("%+v %v", d, err)
	}
	if _, _, err := Trim(strings.NewReader(`{"a": 1}`), "", ""); err == nil {
		t.Error("a list pricing nothing was taken")
	}
}

// Trim reads genai-prices' providers: a name goes to the provider whose
// models it names, another provider's price of it is kept separately, the
// prices in effect on the list's date count, a tier above a threshold
// git-snap knows (above 271,999 is above 272k) is kept, and the names a
// model's match clause is written with find it.
func TestTrimGenAIPrices(t *testing.T) {
	list := `[
	 {"id": "anthropic", "model_match": {"contains": "claude"}, "models": [
	   {"id": "claude-x-1", "match": {"or": [{"starts_with": "claude-x-1"}, {"starts_with": "claude-x.1"}]},
	    "prices": [{"prices": {"input_mtok": 9, "output_mtok": 9}},
	               {"constraint": {"type": "start_date", "start_date": "2026-05-01"}, "prices": {"input_mtok": 3, "cache_read_mtok": 0.3,
	                "cache_write_mtok": 3.75, "cache_write_1h_mtok": 6, "output_mtok": {"base": 15, "tiers": [{"start": 200000, "price": 22.5}]}}},
	               {"constraint": {"type": "start_date", "start_date": "2027-01-01"}, "prices": {"input_mtok": 1, "output_mtok": 1}}]},
	   {"id": "claude-embed", "match": {"equals": "claude-embed"}, "prices": {"requests_kcount": 1}}]},
	 {"id": "aws", "models": [
	   {"id": "regional.anthropic.claude-x-1-v1:0", "match": {"or": [{"starts_with": "anthropic.claude-x-1"}, {"contains": "us.anthropic.claude-x-1"}]},
	    "prices": {"input_mtok": 3.3, "output_mtok": 16.5}}]},
	 {"id": "router", "models": [
	   {"id": "claude-x-1", "match": {"equals": "claude-x-1"}, "prices": {"input_mtok": 4, "output_mtok": 20}},
	   {"id": "free-model", "match": {"equals": "free-model"}, "prices": {}}]},
	 {"id": "openai", "model_match": {"starts_with": "gpt-"}, "models": [
	   {"id": "gpt-z", "match": {"or": [{"equals": "gpt-z"}, {"equals": "gpt-z-2026-01-01"}]},
	    "prices": {"input_mtok": {"base": 5, "tiers": [{"start": 271999, "price": 10}]}, "output_mtok": 30}}]}
	]`
	out, n, err := Trim(strings.NewReader(list), "2026-09-23", "test")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDataset(out)
	if err != nil || d.Date != "2026-09-23" || d.Len() != n {
		t.Fatalf("%+v %v", d, err)
	}
	p := New(d, nil)
	for _, c := range []struct {
		name, key, provider string
		base, long          Rates
		threshold           int64
	}{
		{"claude-x-1-20260501", "claude-x-1", "anthropic",
			Rates{Input: 3e12, CacheRead: 0.3e12, CacheWrite: 3.75e12, CacheWrite1h: 6e12, Output: 15e12},
			Rates{Input: 3e12, CacheRead: 0.3e12, CacheWrite: 3.75e12, CacheWrite1h: 6e12, Output: 22.5e12}, 200_000},
		{"claude-x.1", "claude-x.1", "anthropic",
			Rates{Input: 3e12, CacheRead: 0.3e12, CacheWrite: 3.75e12, CacheWrite1h: 6e12, Output: 15e12},
			Rates{Input: 3e12, CacheRead: 0.3e12, CacheWrite: 3.75e12, CacheWrite1h: 6e12, Output: 22.5e12}, 200_000},
		{"router/claude-x-1", "router/claude-x-1", "router", Rates{Input: 4e12, Output: 20e12}, Rates{}, 0},
		{"bedrock/us.anthropic.claude-x-1-v1:0", "us.anthropic.claude-x-1", "aws", Rates{Input: 3.3e12, Output: 16.5e12}, Rates{}, 0},
		{"gpt-z-2026-01-01", "gpt-z-2026-01-01", "openai", Rates{Input: 5e12, Output: 30e12}, Rates{Input: 10e12, Output: 30e12}, 272_000},
	} {
		m, ok := p.Lookup(c.name)
		if !ok || m.Key != c.key || m.Base != c.base || m.Long != c.long || m.Threshold != c.threshold || d.provider(m.Key) != c.provider {
			t.Errorf("%s: %+v (%v) from %s, want %s's %s %+v over %d %+v", c.name, m, ok, d.provider(m.Key), c.provider, c.key, c.base, c.threshold, c.long)
		}
	}
	for _, name := range []string{"claude-embed", "free-model"} {
		if m, ok := p.Lookup(name); ok {
			t.Errorf("%s, which has no token price, priced as %+v", name, m)
		}
	}
	again, _, err := Trim(bytes.NewReader(out), "2026-09-23", "test")
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("the trimmed copy trims to other bytes: %v", err)
	}
}
