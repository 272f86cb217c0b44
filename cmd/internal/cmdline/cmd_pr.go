package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"time"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/snapshot"
)

type prOptions struct {
	Range    string // BASE..HEAD; "" for the upstream to HEAD
	JSON     bool
	MaxChars int
	Output   string
}

func cmdPR(e *env) *cli.Command {
	return &cli.Command{
		Name:      "pr",
		Usage:     "summarise the agent sessions behind a pull request's commits, in one comment",
		ArgsUsage: "[BASE..HEAD]",
		Description: `Finds every session, local or fetched, with snapshots taken at the commits of
BASE..HEAD (by default the current branch's upstream to HEAD): a snapshot records the
commit HEAD was on (its Snap-Code), and git snap install git marks each new commit on
the sessions at work. It prints one Markdown comment for the pull request, within
--max-chars (65,536, GitHub's limit, by default): a table of the sessions, then for
each its prompts, the files it changed, its tokens and cost, and the commands that
fetch it whole. BASE alone means BASE..HEAD.

A snapshot taken at a commit an amend or a rebase rewrote since is linked to the
commit that replaced it (git snap install git's post-rewrite hook records each);
failing that, commits are matched by their patches (git patch-id): a cherry-pick, a
rebase made elsewhere, or a squash merge of the session's commits made on the forge
and fetched. --json says how each session was linked (linked_by).

A range that names no commit, a repository with no sessions, and commits no session's
snapshots are linked to (git snap prune may have removed the snapshots that were) each
end with a message and exit status 2, printing nothing: there is no comment to post.

Examples:
   git snap pr
   git snap pr main..HEAD | gh pr comment --edit-last --body-file -
   git snap pr origin/main --json | jq '.sessions[].name'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
			&cli.StringFlag{Name: "max-chars", Value: "pr", Usage: "at most `N` characters of Markdown (pr: 65,536, GitHub's limit)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			rawFlag(),
		},
		Action: action(e, shape{max: 1}, parsePR, runPR),
	}
}

func parsePR(c *cli.Context) (prOptions, error) {
	o := prOptions{Range: c.Args().First(), JSON: c.Bool("json"), Output: c.String("output")}
	n, err := parseMaxChars(c.String("max-chars"))
	if err != nil {
		return o, err
	}
	o.MaxChars = n
	return o, nil
}

// runPR finds the sessions linked to the range's commits and writes
// their summary, as Markdown or JSON.
func runPR(ctx context.Context, d *deps, o prOptions) error {
	repo := d.repo
	cr, err := repo.CommitRange(ctx, d.workDir, o.Range)
	if err != nil {
		return err
	}
	lines, err := repo.RangeLines(ctx, cr, linesProgress(d))
	if err != nil {
		return err
	}
	linked, err := repo.LinkedSessions(ctx, cr, lines)
	if err != nil {
		return err
	}
	table, err := d.prices()
	if err != nil {
		return err
	}
	pr := report.PR{Range: cr.Spec, Commits: len(cr.Commits), Lines: prLines(provenance.Count(lines.Files))}
	for _, l := range linked {
		sess, err := loadReport(ctx, d, l.Tip.ID.String(), report.Options{Prices: table})
		if err != nil {
			return fmt.Errorf("read session %s at %s: %w", l.Session, l.Tip.ID, err)
		}
		ps := report.PRSession{Session: sess, Snapshots: l.Snapshots, By: l.By, Lines: l.Lines.Lines, Models: prModels(l.Lines.Models)}
		for _, c := range l.Commits {
			ps.Commits = append(ps.Commits, c.String())
		}
		pr.Sessions = append(pr.Sessions, ps)
	}
	if o.JSON {
		j := prToJSON(cr, pr, linked)
		if o.Output == "" {
			return d.writeJSON(j)
		}
		var buf bytes.Buffer
		out := d.out
		d.out = &buf
		err := d.writeJSON(j)
		d.out = out
		if err != nil {
			return err
		}
		return d.writeOutput(o.Output, buf.Bytes())
	}
	var buf bytes.Buffer
	if err := report.WritePR(&buf, pr, report.SizedOptions{MaxChars: o.MaxChars}); err != nil {
		return err
	}
	return d.writeOutput(o.Output, buf.Bytes())
}

// prJSON is pr --json (docs/schema/pr.schema.json).
type prJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Range         string          `json:"range"`
	Base          string          `json:"base"`
	Head          string          `json:"head"`
	Commits       []prCommitJSON  `json:"commits"`
	Sessions      []prSessionJSON `json:"sessions"`
	// Lines count who wrote the lines the range added that HEAD holds.
	Lines        linesCountJSON     `json:"lines"`
	LinesByModel []linesByModelJSON `json:"lines_by_model"`
}

type prCommitJSON struct {
	ID       string   `json:"id"`
	Subject  string   `json:"subject"`
	Sessions []string `json:"sessions"`
}

type prSessionJSON struct {
	Name         string             `json:"name"`
	Agent        *string            `json:"agent"`
	Models       []string           `json:"models"`
	Snapshot     string             `json:"snapshot"`
	Seq          int                `json:"seq"`
	Snapshots    int                `json:"snapshots"`
	Commits      []string           `json:"commits"`
	LinkedBy     string             `json:"linked_by"`
	First        *string            `json:"first"`
	Last         *string            `json:"last"`
	Prompts      []prPromptJSON     `json:"prompts"`
	Files        []string           `json:"files"`
	ToolCalls    int                `json:"tool_calls"`
	ToolFailures int                `json:"tool_failures"`
	Tokens       *render.TokensJSON `json:"tokens"`
	Cost         *render.CostJSON   `json:"cost"`
	Fetch        []string           `json:"fetch"`
	Lines        int                `json:"lines"`
	LinesByModel []linesByModelJSON `json:"lines_by_model"`
}

type prPromptJSON struct {
	Turn int     `json:"turn"`
	Time *string `json:"time"`
	Text string  `json:"text"`
}

func prToJSON(cr gitsnap.CodeRange, pr report.PR, linked []gitsnap.Linked) prJSON {
	out := prJSON{SchemaVersion: render.SchemaVersion, Range: cr.Spec, Base: cr.Base.String(), Head: cr.Head.String(),
		Commits: []prCommitJSON{}, Sessions: []prSessionJSON{}, LinesByModel: []linesByModelJSON{}}
	if l := pr.Lines; l != nil {
		out.Lines = linesCountJSON{Lines: l.Lines, Agent: l.Agent, Mixed: l.Mixed, Person: l.Person, Unknown: l.Unknown}
		out.LinesByModel = prModelsToJSON(l.Models)
	}
	by := map[string][]string{}
	for i, ps := range pr.Sessions {
		s := ps.Session
		n := s.Numbers
		j := prSessionJSON{Name: s.Name, Agent: nullString(s.Agent), Models: append([]string{}, s.Models...), Snapshot: s.Snapshot, Seq: s.Seq,
			Snapshots: ps.Snapshots, Commits: append([]string{}, ps.Commits...), LinkedBy: ps.By, First: render.TimeJSON(s.First), Last: render.TimeJSON(s.Last),
			Prompts: []prPromptJSON{}, Files: append([]string{}, report.Files(s)...), ToolCalls: n.ToolCalls, ToolFailures: n.ToolFailures,
			Tokens: render.TokensToJSON(snapshot.Usage{Input: n.InputTokens, CacheRead: n.CacheReadTokens, CacheWrite: n.CacheWriteTokens, Output: n.OutputTokens}),
			Fetch:  []string{"git snap pull origin " + s.Name, "git snap export --format html -o " + path.Base(s.Name) + ".html " + s.Name},
			Lines:  linked[i].Lines.Lines, LinesByModel: prModelsToJSON(ps.Models)}
		if n.Cost != nil {
			j.Cost = render.CostToJSON(*n.Cost)
		}
		for _, t := range report.Prompts(s) {
			var at *string
			if tm, err := time.Parse(time.RFC3339Nano, t.Time); err == nil {
				at = render.TimeJSON(tm)
			}
			j.Prompts = append(j.Prompts, prPromptJSON{Turn: t.N, Time: at, Text: t.Prompt})
		}
		for _, c := range ps.Commits {
			by[c] = append(by[c], s.Name)
		}
		out.Sessions = append(out.Sessions, j)
	}
	for _, c := range cr.Commits {
		out.Commits = append(out.Commits, prCommitJSON{ID: c.ID.String(), Subject: c.Subject, Sessions: append([]string{}, by[c.ID.String()]...)})
	}
	return out
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// prLines is what the PR comment says of who wrote the range's lines.
func prLines(t provenance.Tally) *report.PRLines {
	return &report.PRLines{Lines: t.Lines, Agent: t.Kinds[provenance.Agent], Mixed: t.Kinds[provenance.Mixed],
		Person: t.Kinds[provenance.Person], Unknown: t.Kinds[provenance.Unknown], Models: prModels(t.Models)}
}

func prModels(ms []provenance.ModelTally) []report.PRModel {
	var out []report.PRModel
	for _, m := range ms {
		out = append(out, report.PRModel{Model: m.Model, Lines: m.Lines, Share: m.Share})
	}
	return out
}

func prModelsToJSON(ms []report.PRModel) []linesByModelJSON {
	out := []linesByModelJSON{}
	for _, m := range ms {
		out = append(out, linesByModelJSON{Model: nullString(m.Model), Lines: m.Lines, Share: m.Share})
	}
	return out
}
