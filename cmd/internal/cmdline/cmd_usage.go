package cmdline

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/usage"
)

func cmdUsage(e *env) *cli.Command {
	return &cli.Command{
		Name:  "usage",
		Usage: "tokens and their cost by day, week, month or session",
		Description: `Adds up the tokens of every session, local and fetched (each session once), by
day (the default), ISO week (named by its Monday), month or session, optionally split by
model, agent, branch or session: input, output, cache write and cache read separately, and an
estimate of their cost at list prices (git snap prices). A model call counts on the day
of its own record, in the time zone --timezone names (an IANA name such as
Europe/Berlin; default $TZ, else the system's), as ccusage counts an agent's usage.
--since and --until bound the calls' times (2026-02-01, "2 weeks ago", yesterday); a
date alone for --until includes that day. A model with no price is named under the
table, and its tokens are not in the cost.

Examples:
   git snap usage
   git snap usage --monthly --by model
   git snap usage --since 2026-02-01 --until 2026-02-07 --timezone Asia/Tokyo
   git snap usage --daily --json | jq '.rows[] | {period, usd: .cost.usd}'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "daily", Usage: "a row per day (the default)"},
			&cli.BoolFlag{Name: "weekly", Usage: "a row per ISO week, named by its Monday"},
			&cli.BoolFlag{Name: "monthly", Usage: "a row per month"},
			&cli.BoolFlag{Name: "session", Usage: "a row per session"},
			&cli.StringFlag{Name: "by", Usage: "split each row by `KEY`: model, agent, branch or session"},
			&cli.StringFlag{Name: "since", Usage: "only model calls at or after `WHEN`"},
			&cli.StringFlag{Name: "until", Usage: "only model calls before `WHEN` (a date alone: to its end)"},
			&cli.StringFlag{Name: "timezone", Aliases: []string{"z"}, Usage: "days begin in time zone `TZ` (IANA name, UTC)"},
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
		},
		Action: action(e, shape{pager: true}, func(c *cli.Context) (usageOptions, error) { return parseUsage(c, e) }, runUsage),
	}
}

type usageOptions struct {
	usage.Options
	JSON bool
}

func parseUsage(c *cli.Context, e *env) (usageOptions, error) {
	o := usageOptions{JSON: c.Bool("json")}
	var periods []string
	for _, p := range []struct{ flag, period string }{{"daily", usage.Day}, {"weekly", usage.Week}, {"monthly", usage.Month}, {"session", usage.Session}} {
		if c.Bool(p.flag) {
			periods = append(periods, "--"+p.flag)
			o.Period = p.period
		}
	}
	if len(periods) > 1 {
		return o, usagef("choose one of %s", strings.Join(periods, ", "))
	}
	switch o.By = c.String("by"); o.By {
	case "", usage.ByModel, usage.ByAgent, usage.ByBranch, usage.BySession:
	default:
		return o, usagef("--by %q: give model, agent, branch or session", o.By)
	}
	o.Location = time.Local
	if tz := or(c.String("timezone"), e.getenv("TZ")); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			if c.String("timezone") == "" {
				return o, usagef("$TZ %q is no time zone: %v", tz, err)
			}
			return o, usagef("--timezone %q is no time zone (give an IANA name such as Europe/Berlin, or UTC): %v", tz, err)
		}
		o.Location = loc
	}
	now := e.now().In(o.Location)
	var err error
	if o.Since, err = parseWhen(c.String("since"), now); err != nil {
		return o, usagef("--since: %v", err)
	}
	until := strings.TrimSpace(c.String("until"))
	if o.Until, err = parseWhen(until, now); err != nil {
		return o, usagef("--until: %v", err)
	}
	if len(until) == len("2006-01-02") && !o.Until.IsZero() {
		o.Until = o.Until.AddDate(0, 0, 1) // the whole day
	}
	if !o.Since.IsZero() && !o.Until.IsZero() && !o.Since.Before(o.Until) {
		return o, usagef("--since %s is not before --until %s", c.String("since"), c.String("until"))
	}
	return o, nil
}

// runUsage prints the usage report.
func runUsage(ctx context.Context, d *deps, o usageOptions) error {
	table, err := d.prices()
	if err != nil {
		return err
	}
	o.Prices, o.Progress = table, upgradeProgress(d)
	rep, err := d.repo.Usage(ctx, o.Options)
	if err != nil {
		return err
	}
	if o.JSON {
		return d.writeJSON(render.NewUsageJSON(rep))
	}
	if len(rep.Rows) == 0 {
		fmt.Fprintln(d.out, "no model calls in the sessions and times asked for")
		return nil
	}
	tw := tabwriter.NewWriter(d.out, 0, 4, 2, ' ', 0)
	head := map[string]string{usage.Day: "DATE", usage.Week: "WEEK", usage.Month: "MONTH", usage.Session: "SESSION"}[rep.Options.Period]
	cols := []string{head}
	if o.By != "" {
		cols = append(cols, strings.ToUpper(o.By))
	}
	cols = append(cols, "SESSIONS", "INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ", "TOTAL", "COST")
	if o.By != usage.ByModel {
		cols = append(cols, "MODELS")
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	line := func(period, key string, r usage.Row) {
		cells := []string{period}
		switch {
		case o.By != "" && period == "total":
			cells = append(cells, "")
		case o.By != "":
			cells = append(cells, or(key, "(none)"))
		}
		u := r.Usage
		cells = append(cells, fmt.Sprint(r.Sessions), render.Thousands(u.Input), render.Thousands(u.Output), render.Thousands(u.CacheWrite),
			render.Thousands(u.CacheRead), render.Thousands(u.Total()), render.ShortCost(r.Cost))
		if o.By != usage.ByModel {
			var models []string
			for _, m := range r.Models {
				models = append(models, or(m, "(no model named)"))
			}
			cells = append(cells, strings.Join(models, ", "))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	for _, r := range rep.Rows {
		line(r.Period, r.Key, r)
	}
	line("total", "", rep.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "cost: %s\n", render.CostText(&rep.Total.Cost))
	return nil
}
