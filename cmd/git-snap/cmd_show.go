package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/snapshot"
)

type showOptions struct {
	Rev     string
	Session string
	JSON    bool
	YAML    bool
}

func cmdShow(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a snapshot: header, stats and the conversation",
		ArgsUsage: "REV",
		Description: `Shows a snapshot's header and statistics, then its conversation for a person:
roles, text, tool calls and results (shortened). --json and --yaml give everything:
header, stats and the whole document.

Examples:
   git snap show fix-login
   git snap show fix-login~2 --json | jq .stats
   git snap show snap/fix-login/green --yaml`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "header, stats and document as JSON"},
			&cli.BoolFlag{Name: "yaml", Usage: "header, stats and document as YAML"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "show this session's newest snapshot when no REV is given"},
		},
		Action: action(e, shape{max: 1, pager: true}, parseShow, runShow),
	}
}

func parseShow(c *cli.Context) (showOptions, error) {
	o := showOptions{Rev: c.Args().First(), Session: c.String("session"), JSON: c.Bool("json"), YAML: c.Bool("yaml")}
	if o.JSON && o.YAML {
		return o, usagef("choose one of --json and --yaml")
	}
	return o, nil
}

// statsJSON is a document's statistics as scripts read them. Input
// tokens are uncached input; cache reads and writes are apart.
type statsJSON struct {
	Messages         int       `json:"messages"`
	Events           int       `json:"events"`
	Files            int       `json:"files"`
	ToolCalls        int       `json:"tool_calls"`
	ToolFailures     int       `json:"tool_failures"`
	ModelCalls       int       `json:"model_calls"`
	Turns            int       `json:"turns"`
	Compactions      int       `json:"compactions"`
	InputTokens      int64     `json:"input_tokens"`
	CacheReadTokens  int64     `json:"cache_read_tokens"`
	CacheWriteTokens int64     `json:"cache_write_tokens"`
	OutputTokens     int64     `json:"output_tokens"`
	Estimated        bool      `json:"tokens_estimated"`
	Cost             *costJSON `json:"cost,omitempty"`
	// first and last are the times of the records, zero when none has one.
	first, last time.Time
	byModel     map[string]snapshot.Usage
}

// costJSON is an estimate of what the tokens cost at list prices.
type costJSON struct {
	Estimate   bool     `json:"estimate"` // always true: prices change and are not the bill
	USD        float64  `json:"usd"`
	Unknown    []string `json:"unknown_models,omitempty"`
	PricesDate string   `json:"prices_date"`
}

// statsOf reads a document's numbers the way trace does, with the view of
// the agent that recorded it (source).
func statsOf(doc map[string]any, source string) statsJSON {
	a, _ := agent.Lookup(source, agent.Env{})
	st := snapshot.ComputeStats(doc, agent.ViewMessage)
	_, tr := agent.Trace(doc, a)
	return statsJSON{
		Messages: st.Messages, Events: st.Events, Files: st.Files,
		ToolCalls: tr.ToolCalls, ToolFailures: tr.ToolFailures, ModelCalls: tr.ModelCalls, Turns: tr.Turns, Compactions: tr.Compactions,
		InputTokens: tr.InputTokens, CacheReadTokens: tr.CacheReadTokens, CacheWriteTokens: tr.CacheWriteTokens, OutputTokens: tr.OutputTokens,
		Estimated: st.Estimated, first: tr.First, last: tr.Last, byModel: tr.ByModel,
	}
}

// withCost puts a cost estimate on the statistics, with the built-in
// prices and those of the configuration.
func (s *statsJSON) withCost(cfg config.Config) {
	c := agent.EstimateCost(s.byModel, configPrices(cfg))
	s.Cost = &costJSON{Estimate: true, USD: c.USD, Unknown: c.Unknown, PricesDate: agent.PricesDate}
}

func configPrices(cfg config.Config) map[string]agent.Price {
	out := map[string]agent.Price{}
	for model, p := range cfg.Prices {
		out[model] = agent.Price{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Output: p.Output}
	}
	return out
}

// costText says what a cost estimate is, in one line.
func costText(c *costJSON) string {
	if c == nil {
		return ""
	}
	text := fmt.Sprintf("$%.2f (estimate at list prices of %s)", c.USD, c.PricesDate)
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

// runShow shows o.Rev, or the newest snapshot of the session.
func runShow(ctx context.Context, d *deps, o showOptions) error {
	s, w, p := d.store, d.out, d.color
	rev := or(o.Rev, or(o.Session, d.session))
	if rev == "" {
		return usagef("show needs REV (a session, session~N, snap/<session>/<name> or an id)")
	}
	doc, entry, err := s.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	st := statsOf(doc, entry.Header.Source)
	if o.JSON || o.YAML {
		full := map[string]any{"header": toJSON(entry, nil), "stats": st, "document": doc}
		if o.JSON {
			return writeJSON(w, full)
		}
		return writeYAML(w, map[string]any{"header": jsonToValue(toJSON(entry, nil)), "stats": jsonToValue(st), "document": doc})
	}
	cps, err := s.Checkpoints(ctx, entry.Header.Session, false)
	if err != nil {
		return err
	}
	var names []string
	for _, cp := range cps {
		if cp.Target == entry.ID {
			names = append(names, cp.Name)
		}
	}
	writeEntry(w, p, entry, names)
	writeStats(w, st)
	if msgs, ok := doc[snapshot.MemberMessages].([]any); ok && len(msgs) > 0 {
		fmt.Fprintln(w)
		writeConversation(w, p, msgs)
	}
	if files, ok := doc[snapshot.MemberFiles].(map[string]any); ok && len(files) > 0 {
		fmt.Fprintln(w, p.bold("\nfiles"))
		for _, path := range sortedKeys(files) {
			fmt.Fprintf(w, "    %s\n", path)
		}
	}
	return nil
}

// jsonToValue turns a struct meant for encoding/json into a JSON value
// (for YAML output), by way of the canonical parser.
func jsonToValue(v any) any {
	var buf bytes.Buffer
	if writeJSON(&buf, v) != nil {
		return nil
	}
	out, err := snapshot.Parse(buf.Bytes(), snapshot.Limits{})
	if err != nil {
		return nil
	}
	return out
}
