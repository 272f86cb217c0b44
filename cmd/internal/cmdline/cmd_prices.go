package cmdline

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/prices"
)

// pricesURL is where genai-prices keeps its price list up to date (the
// data its npm package carries, which the built-in copy is taken from).
const pricesURL = "https://raw.githubusercontent.com/pydantic/genai-prices/main/prices/new_data/v2/data.json"

func cmdPrices(e *env) *cli.Command {
	return &cli.Command{
		Name:      "prices",
		Usage:     "show the prices costs are estimated with, or update them",
		ArgsUsage: "[MODEL…] | update [FILE|URL]",
		Description: `Costs are estimates at list prices from genai-prices' price list
(github.com/pydantic/genai-prices, the data of its npm package): a dated copy is built in,
and git snap prices update replaces it with a newer one, kept in
$XDG_CONFIG_HOME/git-snap/prices.json: from FILE, from URL, or with no argument from
genai-prices' repository. A file of LiteLLM's list (model_prices_and_context_window.json,
which ccusage reads) is taken too. The config's prices: section overrides single models
over either. The first lines say the list's date and where it is from.

With MODEL, shows the price each model is estimated at and where it comes from, in
dollars per million tokens: input, output, cache read, cache write (5 minutes and one
hour) and, for models whose price changes with a long prompt, above that size. A
model with no price is said to have none: its tokens are left out of every cost, and
named beside it.

Examples:
   git snap prices
   git snap prices claude-opus-4-6 gemini-2.5-pro
   git snap prices update
   git snap prices update ~/Downloads/data.json`,
		Action: action(e, shape{max: -1, open: withNothing}, parsePrices, runPrices),
	}
}

type pricesOptions struct {
	Update bool
	From   string   // with Update: a file or URL; "" for genai-prices' own
	Models []string // to show
}

// isURL says whether prices update reads source from the web.
func isURL(source string) bool {
	return strings.HasPrefix(source, "https://") || strings.HasPrefix(source, "http://")
}

func parsePrices(c *cli.Context) (pricesOptions, error) {
	args := c.Args().Slice()
	if len(args) > 0 && args[0] == "update" {
		if len(args) > 2 {
			return pricesOptions{}, usagef("prices update takes one FILE or URL, not %d", len(args)-1)
		}
		o := pricesOptions{Update: true}
		if len(args) == 2 {
			o.From = args[1]
		}
		return o, nil
	}
	return pricesOptions{Models: args}, nil
}

// runPrices updates the user's copy of the price list, or shows prices.
func runPrices(ctx context.Context, d *deps, o pricesOptions) error {
	if o.Update {
		return updatePrices(ctx, d, o.From)
	}
	var overrides map[string]prices.Price
	if _, cfg, err := d.openAt(ctx, d.workDir); err == nil { // in a repository: its config's prices too
		overrides = configPrices(cfg)
	}
	table, err := prices.Load(d.userConfigDir, overrides)
	if err != nil {
		return err
	}
	from := "built in"
	if path := prices.UserFile(d.userConfigDir); fileExists(path) {
		from = path
	}
	fmt.Fprintf(d.out, "prices of %s (%s)\nfrom %s\n", table.Date(), from, table.Source())
	for _, model := range o.Models {
		m, ok := table.Lookup(model)
		if !ok {
			fmt.Fprintf(d.out, "\n%s: no price; its tokens are left out of costs (config prices: can give one)\n", model)
			continue
		}
		fmt.Fprintf(d.out, "\n%s: as %s (%s)\n", model, m.Key, m.From)
		writeRates(d, "", m.Base)
		if m.Threshold > 0 {
			writeRates(d, fmt.Sprintf("over %d tokens of prompt: ", m.Threshold), m.Long)
		}
	}
	return nil
}

func writeRates(d *deps, prefix string, r prices.Rates) {
	perM := func(atto int64) string { // attodollars a token are micro-dollars a million
		micros := atto / 1_000_000
		frac := strings.TrimRight(fmt.Sprintf("%06d", micros%1_000_000), "0")
		for len(frac) < 2 {
			frac += "0"
		}
		return fmt.Sprintf("$%d.%s", micros/1_000_000, frac)
	}
	fmt.Fprintf(d.out, "   %sinput %s, output %s, cache read %s, cache write %s (one hour %s) per million tokens\n",
		prefix, perM(r.Input), perM(r.Output), perM(r.CacheRead), perM(r.CacheWrite), perM(r.CacheWrite1h))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}

// updatePrices reads a price list from a file or URL, trims it and writes
// it as the user's copy.
func updatePrices(ctx context.Context, d *deps, from string) error {
	dest := prices.UserFile(d.userConfigDir)
	if dest == "" {
		return usagef("prices update: no configuration directory to keep the prices in (set $XDG_CONFIG_HOME or $HOME)")
	}
	source := or(from, pricesURL)
	var r io.Reader
	if isURL(source) {
		body, err := download(ctx, source)
		if err != nil {
			return err
		}
		defer body.Close()
		r = io.LimitReader(body, 64<<20)
	} else {
		path := source
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return usagef("prices update: %v", err)
		}
		defer f.Close()
		r = f
		if abs, err := filepath.Abs(path); err == nil {
			source = abs
		}
	}
	date := d.now().UTC().Format("2006-01-02")
	data, n, err := prices.Trim(r, date, "the price list at "+source+", taken "+date)
	if err != nil {
		return usagef("prices update %s: %v", or(from, source), err)
	}
	if err := prices.WriteUserFile(d.userConfigDir, data); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "%d models priced, from %s, written to %s\n", n, source, dest)
	return nil
}

// download is the body of url when its server answers 200 OK, read
// within a minute.
func download(ctx context.Context, url string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, usagef("prices update %s: %v", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("prices update: %w (give a FILE downloaded some other way)", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("prices update: %s answered %s", url, resp.Status)
	}
	return cancelOnClose{resp.Body, cancel}, nil
}

// cancelOnClose is a response's body whose Close ends its deadline.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// configPrices is the config's prices: section as the prices package
// takes it.
func configPrices(cfg config.Config) map[string]prices.Price {
	out := map[string]prices.Price{}
	for model, p := range cfg.Prices {
		out[model] = prices.Price{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Output: p.Output}
	}
	return out
}
