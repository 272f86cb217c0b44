package prices

import (
	"bytes"
	_ "embed" // the dataset
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// genai-prices.json is @pydantic/genai-prices' price data (see Source)
// as Trim writes it: the models priced per token, with their token
// prices, one model per line, sorted by name.
//
//go:embed genai-prices.json
var embedded []byte

// Dataset is a copy of a price list in the form Trim writes. It is read
// one line at a time on lookup, so that a command pays only for the
// models it prices, not for parsing the whole list.
type Dataset struct {
	// Date and Source identify the copy: when and where it was taken.
	Date, Source string
	data         []byte
	lines        []int // offsets of the model lines, sorted by name
}

// metaKey is the member of a trimmed copy that says where it came from.
const metaKey = "git-snap:source"

var embeddedOnce = sync.OnceValue(func() *Dataset {
	d, err := ParseDataset(embedded)
	if err != nil {
		panic("prices: cannot read the embedded dataset: " + err.Error())
	}
	d.Date, d.Source = Date, Source
	return d
})

// Embedded returns the dataset built into git-snap.
func Embedded() *Dataset { return embeddedOnce() }

// ParseDataset reads a trimmed copy (see Trim). It only indexes the
// lines; a model's prices are parsed when it is looked up.
func ParseDataset(data []byte) (*Dataset, error) {
	d := &Dataset{data: data}
	if !bytes.HasPrefix(data, []byte("{\n")) {
		return nil, errors.New("not a price list written by git snap prices update (it starts with \"{\" and a line break)")
	}
	prev := ""
	for off := 2; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		if len(line) > 0 && line[0] == '"' {
			key, err := lineKey(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", len(d.lines)+2, err)
			}
			if key == metaKey {
				var meta struct{ Date, Source string }
				if err := json.Unmarshal(lineValue(line), &meta); err == nil {
					d.Date, d.Source = meta.Date, meta.Source
				}
			} else {
				if key <= prev && prev != "" {
					return nil, fmt.Errorf("line %d: %q is out of order", len(d.lines)+2, key)
				}
				prev = key
				d.lines = append(d.lines, off)
			}
		}
		off += end + 1
	}
	return d, nil
}

// lineKey returns the model name a line starts with.
func lineKey(line []byte) (string, error) {
	i := bytes.Index(line, []byte(`": `))
	if i < 0 {
		return "", errors.New("not a \"name\": {…} line")
	}
	var key string
	if err := json.Unmarshal(line[:i+1], &key); err != nil {
		return "", err
	}
	return key, nil
}

func lineValue(line []byte) []byte {
	i := bytes.Index(line, []byte(`": `))
	return bytes.TrimSuffix(bytes.TrimSpace(line[i+3:]), []byte(","))
}

func (d *Dataset) line(i int) []byte {
	off := d.lines[i]
	end := bytes.IndexByte(d.data[off:], '\n')
	if end < 0 {
		return d.data[off:]
	}
	return d.data[off : off+end]
}

// Len returns the number of models the dataset prices.
func (d *Dataset) Len() int { return len(d.lines) }

// model returns the prices of the model listed as name.
func (d *Dataset) model(name string) (Model, bool) {
	i := sort.Search(len(d.lines), func(i int) bool {
		k, _ := lineKey(d.line(i))
		return k >= name
	})
	if i == len(d.lines) {
		return Model{}, false
	}
	line := d.line(i)
	if k, _ := lineKey(line); k != name {
		return Model{}, false
	}
	var e map[string]json.Number
	dec := json.NewDecoder(bytes.NewReader(lineValue(line)))
	dec.UseNumber()
	var raw map[string]any
	if dec.Decode(&raw) != nil {
		return Model{}, false
	}
	e = map[string]json.Number{}
	for k, v := range raw {
		if n, ok := v.(json.Number); ok {
			e[k] = n
		}
	}
	return modelOf(name, d.Date, e), true
}

// provider returns the provider of the model listed as name, or "" when
// it is not listed.
func (d *Dataset) provider(name string) string {
	i := sort.Search(len(d.lines), func(i int) bool {
		k, _ := lineKey(d.line(i))
		return k >= name
	})
	if i == len(d.lines) {
		return ""
	}
	var e struct {
		Provider string `json:"litellm_provider"`
	}
	line := d.line(i)
	if k, _ := lineKey(line); k != name || json.Unmarshal(lineValue(line), &e) != nil {
		return ""
	}
	return e.Provider
}

// perToken converts a price in dollars per token to attodollars per
// token, exactly from its decimal digits; ok is false when it is absent.
func perToken(e map[string]json.Number, key string) (int64, bool) {
	n, ok := e[key]
	if !ok {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || r.Sign() < 0 {
		return 0, false
	}
	return ratToInt(r.Mul(r, big.NewRat(1e18, 1))), true
}

// tiers are the long-context thresholds that appear in the dataset's
// keys (input_cost_per_token_above_200k_tokens).
var tiers = []struct {
	suffix string
	tokens int64
}{{"_above_128k_tokens", 128_000}, {"_above_200k_tokens", 200_000}, {"_above_272k_tokens", 272_000}}

// modelOf parses one dataset entry. A one-hour cache write costs the
// entry's cache_creation_input_token_cost_above_1hr, else twice the
// input, as Anthropic lists it and ccusage counts it. The first
// threshold in tiers with a price for any kind of token starts the
// long-context tier. Within that tier, a kind with no price of its own
// keeps its base price.
func modelOf(key, from string, e map[string]json.Number) Model {
	get := func(k string) int64 { v, _ := perToken(e, k); return v }
	m := Model{Key: key, From: from, Base: Rates{
		Input: get("input_cost_per_token"), CacheRead: get("cache_read_input_token_cost"),
		CacheWrite: get("cache_creation_input_token_cost"), Output: get("output_cost_per_token"),
	}}
	m.Base.CacheWrite1h = oneHourWrite(m.Base)
	if v, ok := perToken(e, "cache_creation_input_token_cost_above_1hr"); ok {
		m.Base.CacheWrite1h = v
	}
	for _, t := range tiers {
		kinds := []string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost", "cache_creation_input_token_cost"}
		if !slices.ContainsFunc(kinds, func(k string) bool { _, ok := perToken(e, k+t.suffix); return ok }) {
			continue
		}
		m.Threshold = t.tokens
		or := func(k string, base int64) int64 {
			if v, ok := perToken(e, k); ok {
				return v
			}
			return base
		}
		in := or("input_cost_per_token"+t.suffix, m.Base.Input)
		m.Long = Rates{
			Input: in, CacheRead: or("cache_read_input_token_cost"+t.suffix, m.Base.CacheRead),
			CacheWrite: or("cache_creation_input_token_cost"+t.suffix, m.Base.CacheWrite),
			Output:     or("output_cost_per_token"+t.suffix, m.Base.Output),
		}
		m.Long.CacheWrite1h = or("cache_creation_input_token_cost_above_1hr"+t.suffix, oneHourWrite(m.Long))
		break
	}
	return m
}

// keptModes are the kinds of model that agents spend tokens on.
var keptModes = map[string]bool{"chat": true, "responses": true, "completion": true, "": true}

// keptFields are the members of an entry that a trimmed copy keeps: its
// token prices at the standard tier (not batch, flex or priority) and
// above each long-context threshold, and its provider.
var keptFields = func() map[string]bool {
	m := map[string]bool{"litellm_provider": true}
	for _, k := range []string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost",
		"cache_creation_input_token_cost", "cache_creation_input_token_cost_above_1hr"} {
		m[k] = true
		for _, t := range tiers {
			m[k+t.suffix] = true
		}
	}
	return m
}()

// maxPerToken is the most a token may cost, in dollars. It is well over
// any model's price, and far below what would overflow attodollars in an
// int64.
const maxPerToken = 1

// checkPrice refuses an invalid price: one that is not a number, is
// negative, or is over maxPerToken a token. ($10 a token would make every
// estimate absurd, and 9.3e18 would wrap to a negative price.) Members
// that are not prices are left to the caller.
func checkPrice(key string, v any) error {
	if !keptFields[key] || key == "litellm_provider" || v == nil {
		return nil
	}
	n, ok := v.(json.Number)
	r, parsed := new(big.Rat), false
	if ok {
		_, parsed = r.SetString(string(n))
	}
	if !parsed || r.Sign() < 0 || r.Cmp(big.NewRat(maxPerToken, 1)) > 0 {
		return fmt.Errorf("%s is %v, not a price from $0 to $%d a token", key, v, maxPerToken)
	}
	return nil
}

// Trim reads a price list and writes the part git-snap keeps: the models
// priced per token and their token prices, one model per line sorted by
// name, with date and source in a member of their own.
//
// The list may be @pydantic/genai-prices' data.json (a list of
// providers, each with its models; dated prices are taken as of date),
// LiteLLM's model_prices_and_context_window.json (an object keyed by
// model name), or a copy Trim wrote. Trim refuses a list that prices no
// model, and one with a price that is not a number from $0 to $1 a
// token.
func Trim(r io.Reader, date, source string) ([]byte, int, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, 0, fmt.Errorf("not a JSON price list: %w", err)
	}
	var kept map[string]map[string]any
	var err error
	switch strings.TrimSpace(string(raw))[0] {
	case '[':
		kept, err = fromGenAIPrices(raw, date)
	case '{':
		kept, err = fromLiteLLM(raw)
	default:
		err = errors.New("a JSON price list is a list of providers (genai-prices) or an object by model (LiteLLM)")
	}
	if err != nil {
		return nil, 0, err
	}
	if len(kept) == 0 {
		return nil, 0, errors.New("the list prices no model per token: is it genai-prices' data.json or LiteLLM's model_prices_and_context_window.json?")
	}
	for name, e := range kept {
		for k, v := range e {
			if err := checkPrice(k, v); err != nil {
				return nil, 0, fmt.Errorf("model %q: %w; nothing was written", name, err)
			}
		}
	}
	return writeTrimmed(kept, date, source)
}

// fromLiteLLM converts LiteLLM's list (or a trimmed copy) into the
// entries a trimmed copy keeps, by name.
func fromLiteLLM(raw json.RawMessage) (map[string]map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var all map[string]any
	if err := dec.Decode(&all); err != nil {
		return nil, fmt.Errorf("not a JSON price list: %w", err)
	}
	kept := map[string]map[string]any{}
	for name, v := range all {
		e, ok := v.(map[string]any)
		mode, _ := e["mode"].(string)
		if !ok || name == metaKey || !keptModes[mode] {
			continue
		}
		out := map[string]any{}
		priced := false
		for k, x := range e {
			if err := checkPrice(k, x); err != nil {
				return nil, fmt.Errorf("model %q: %w; nothing was written", name, err)
			}
			if n, isNum := x.(json.Number); keptFields[k] && (isNum || k == "litellm_provider") {
				out[k] = x
				priced = priced || (isNum && (k == "input_cost_per_token" || k == "output_cost_per_token") && n != "")
			}
		}
		if priced {
			kept[name] = out
		}
	}
	return kept, nil
}

// writeTrimmed writes entries as a trimmed copy: date and source first,
// then one model per line, sorted by name.
func writeTrimmed(kept map[string]map[string]any, date, source string) ([]byte, int, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	writeLine := func(key string, v any, last bool) error {
		var kb, vb bytes.Buffer
		for buf, x := range map[*bytes.Buffer]any{&kb: key, &vb: v} {
			enc := json.NewEncoder(buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(x); err != nil {
				return err
			}
		}
		b.Write(bytes.TrimSpace(kb.Bytes()))
		b.WriteString(": ")
		b.Write(bytes.TrimSpace(vb.Bytes()))
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	if err := writeLine(metaKey, map[string]string{"date": date, "source": source}, false); err != nil {
		return nil, 0, err
	}
	names := slices.Sorted(maps.Keys(kept))
	for i, name := range names {
		if err := writeLine(name, kept[name], i == len(names)-1); err != nil {
			return nil, 0, err
		}
	}
	b.WriteString("}\n")
	return b.Bytes(), len(names), nil
}

// UserFile returns the path where git snap prices update keeps the
// user's copy, under the user's configuration directory.
func UserFile(userConfigDir string) string {
	if userConfigDir == "" {
		return ""
	}
	return filepath.Join(userConfigDir, "git-snap", "prices.json")
}

// WriteUserFile saves a trimmed copy (see Trim) as the user's copy, next
// to the user's configuration. It writes a temporary file and renames it
// into place, so that a reader sees either the old copy or the new one.
func WriteUserFile(userConfigDir string, data []byte) error {
	if _, err := ParseDataset(data); err != nil {
		return err
	}
	path := UserFile(userConfigDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".prices-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load returns the prices a command estimates costs with: the user's
// copy of the dataset when there is one, else the embedded one, with
// overrides (the configuration's prices) taking precedence.
func Load(userConfigDir string, overrides map[string]Price) (*Prices, error) {
	data := Embedded()
	if path := UserFile(userConfigDir); path != "" {
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			d, err := ParseDataset(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w (git snap prices update writes it again)", path, err)
			}
			data = d
		}
	}
	return New(data, overrides), nil
}
