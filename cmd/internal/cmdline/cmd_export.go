package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/atif"
	"github.com/git-snap/git-snap/chat"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/otel"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/snapshot"
)

type exportOptions struct {
	Rev     string
	Output  string
	Compact bool
	YAML    bool
	Bundle  string   // write a bundle to this file instead
	Names   []string // with Bundle: the sessions and checkpoints
	Format  string   // json (the document), markdown or html (a document for a person)
	From    string   // with markdown or html: only what happened after this revision
	Session string   // the session whose newest snapshot to export when no REV is given
	// Endpoint, with --format otel, is the OTLP/HTTP endpoint to send the
	// traces to.
	Endpoint string
	// MaxChars, with markdown, bounds the document (report.WriteMarkdownSized); 0: no bound.
	MaxChars int
}

func cmdExport(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a snapshot's document to a file, to share or keep as a fixture",
		ArgsUsage: "[REV]",
		Description: `Writes the document saved as REV: canonical indented JSON by default,
compact canonical JSON with --compact (RFC 8785's layout, every digit of a number
kept), or YAML. import reads it back. Without REV, the newest snapshot of --session,
$GIT_SNAP_SESSION or the config's session.

--format markdown or html writes the conversation for a person instead: a header
(session, agent, model, code commit, dates, tokens of each kind, an estimated cost),
then each turn with its prompt, the answer, the tool calls as collapsible blocks with
their input and result (failures marked), the files it changed as diffs, and the
checkpoints where they were taken. Markdown is CommonMark for a pull request or an
issue; HTML is one file with nothing external and no script. --range A..B exports
only what happened after snapshot A up to B.

--format agent-trace writes who wrote the lines a range of code commits added (REV is
then the range, BASE..HEAD, read as git snap pr reads it) as Agent Trace v0.1 records,
one JSON line per commit: its files and line ranges by contributor (ai, mixed, human,
unknown) with the model, as git snap blame tells each line. A conversation's reference
is the snapshot whose captured files introduced the lines (git snap show resolves it),
under the record's metadata "dev.git-snap", with its session, turn and prompt.

--format atif writes an ATIF trajectory (Agent Trajectory Interchange Format v1.8,
Harbor RFC 0001) for tools that read one: user, system and agent steps, tool calls
with their results matched by id, tokens, cost and model per step, subagents as
embedded trajectories. extra.git_snap keeps what ATIF has no field for, so that
git snap import --from atif FILE restores the session JSON-equal.

--format messages writes chat-messages JSONL, as training and evaluation sets of
agent trajectories take it: one line per conversation (the session's, then each
subagent's), {"messages": [...]} with role and content, an assistant's tool_calls
(arguments as a JSON string) and reasoning_content, each tool result a "tool"
message with its tool_call_id.

--format otel writes the session as OpenTelemetry traces in OTLP/JSON, following the
GenAI semantic conventions: one trace, an invoke_agent span over the session, a chat
span per model call with its model and tokens, an execute_tool span per tool call
(failed ones with status ERROR), a subagent's spans under the call that ran it.
--endpoint URL sends them to an OTLP/HTTP receiver (a collector, Langfuse, Grafana)
instead of printing them.

--max-chars N (with markdown) keeps the document within N characters, counted as bytes
of UTF-8 so that no count of characters is more; pr is GitHub's limit for a pull
request's body or a comment, 65,536. What does not fit is cut in this
order: tool calls' inputs and outputs (each call stays as one line: tool, target, ok or
failed), thinking, the answers but each turn's last, diffs, the last answers, failures'
outputs; every prompt and every failed call stays. Each turn ends with a line saying
what it lost, and the header with how to get the whole session. Cuts fall between
blocks, never inside a code fence or an HTML element.

--bundle FILE writes a git bundle instead: the sessions named with their checkpoints
(as push sends them) and the checkpoints named, or
--session's (all sessions when none is), with their history, one file to attach to an
issue or a pull request. git snap import FILE.bundle reads it back; git bundle and git fetch read it too.

Examples:
   git snap export snap/fix-login/green -o testdata/login-bug.json
   git snap export fix-login --compact | sha256sum
   git snap export --bundle login-bug.bundle snap/fix-login/green
   git snap export fix-login --format markdown -o docs/login-session.md
   git snap export --format html --range fix-login~5..fix-login -o review.html
   git snap export fix-login --format markdown --max-chars pr | gh pr comment --body-file -
   git snap export fix-login --format atif -o fix-login.atif.json
   git snap export fix-login --format messages >> train.jsonl
   git snap export fix-login --format otel --endpoint http://localhost:4318
   git snap export --format agent-trace main..HEAD -o traces.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "json", Usage: "`FORMAT`: json (the document), markdown or html (the conversation for a person), atif (a trajectory), messages (chat JSONL), otel (OTLP/JSON traces), agent-trace (who wrote a code range's lines)"},
			&cli.StringFlag{Name: "endpoint", Usage: "with --format otel: send the traces to the OTLP/HTTP endpoint `URL` (its /v1/traces when it has no path)"},
			&cli.StringFlag{Name: "max-chars", Usage: "with --format markdown: at most `N` characters, cutting what does not fit (pr: 65,536, GitHub's limit)"},
			&cli.StringFlag{Name: "range", Usage: "with --format markdown or html: only what happened in `A..B`"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "export this session's newest snapshot when no REV is given; with --bundle, bundle this session"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "compact", Usage: "canonical JSON with no whitespace (RFC 8785's layout, every digit kept)"},
			&cli.BoolFlag{Name: "yaml", Usage: "YAML instead of JSON"},
			&cli.StringFlag{Name: "bundle", Usage: "write a git bundle to `FILE` of the sessions named, with their checkpoints, and the checkpoints named"},
			rawFlag(),
		},
		Action: action(e, shape{max: -1}, parseExport, runExport),
	}
}

func parseExport(c *cli.Context) (exportOptions, error) {
	o := exportOptions{Output: c.String("output"), Compact: c.Bool("compact"), YAML: c.Bool("yaml"), Bundle: c.String("bundle"),
		Format: c.String("format"), Session: c.String("session")}
	if o.Bundle != "" {
		// --session names a session as an argument does: a bundle of
		// every session, when one was asked for, would carry the others'
		// transcripts where the user did not mean to.
		o.Names = c.Args().Slice()
		if o.Session != "" {
			o.Names = append(o.Names, o.Session)
		}
		return o, nil
	}
	if err := args(c, 0, 1); err != nil {
		return o, err
	}
	o.Rev = c.Args().First()
	if o.Endpoint = c.String("endpoint"); o.Endpoint != "" {
		if o.Format != "otel" {
			return o, usagef("--endpoint goes with --format otel")
		}
	}
	switch o.Format {
	case "json":
	case "markdown", "md", "html", "atif", "messages", "otel", "agent-trace":
		if o.Compact || o.YAML {
			return o, usagef("--compact and --yaml go with --format json")
		}
	default:
		return o, usagef("--format %q: choose json, markdown, html, atif, messages, otel or agent-trace", o.Format)
	}
	if o.Format == "agent-trace" && o.Session != "" {
		return o, usagef("--format agent-trace takes a range of code commits, not --session")
	}
	if m := c.String("max-chars"); m != "" {
		if o.Format != "markdown" && o.Format != "md" {
			return o, usagef("--max-chars goes with --format markdown")
		}
		n, err := parseMaxChars(m)
		if err != nil {
			return o, err
		}
		o.MaxChars = n
	}
	if r := c.String("range"); r != "" {
		if o.Format != "markdown" && o.Format != "md" && o.Format != "html" {
			return o, usagef("--range goes with --format markdown or html")
		}
		if o.Rev != "" {
			return o, usagef("give REV or --range A..B, not both")
		}
		from, to, err := report.ParseRange(r)
		if err != nil {
			return o, err
		}
		o.From, o.Rev = from, to
	}
	if o.Compact && o.YAML {
		return o, usagef("choose one of --compact and --yaml")
	}
	return o, nil
}

// runExport writes the document saved as o.Rev, or a bundle.
func runExport(ctx context.Context, d *deps, o exportOptions) error {
	proc.LimitMemory(readMemoryLimit)
	if o.Bundle != "" {
		return exportBundle(ctx, d, o.Bundle, o.Names)
	}
	if o.Endpoint != "" { // checked before anything is read, as a flag is
		if _, err := otel.TracesURL(o.Endpoint); err != nil {
			return usagef("--endpoint: %v", err)
		}
	}
	if o.Format == "agent-trace" {
		return exportAgentTrace(ctx, d, o)
	}
	var err error
	if o.Rev, err = d.revOrSession(ctx, o.Rev, o.Session); err != nil {
		return err
	}
	switch o.Format {
	case "", "json":
	case "atif", "messages":
		return exportTrajectory(ctx, d, o)
	case "otel":
		return exportOTel(ctx, d, o)
	default:
		return exportReport(ctx, d, o)
	}
	doc, _, err := d.repo.ReadRevision(ctx, o.Rev)
	if err != nil {
		return err
	}
	var data []byte
	switch {
	case o.YAML:
		var buf bytes.Buffer
		if err := render.YAML(&buf, doc); err != nil {
			return err
		}
		data = buf.Bytes()
	case o.Compact:
		if data, err = snapshot.Marshal(doc); err != nil {
			return err
		}
	default:
		if data, err = snapshot.MarshalIndent(doc); err != nil {
			return err
		}
	}
	return d.writeOutput(o.Output, data)
}

// exportReport writes the conversation as Markdown or HTML, a turn at
// a time as it is read (report.Open), so that a long session is never
// held whole; --max-chars weighs the turns against each other, so it
// reads them all first.
func exportReport(ctx context.Context, d *deps, o exportOptions) error {
	table, err := d.prices()
	if err != nil {
		return err
	}
	snap, err := d.repo.Show(ctx, o.Rev)
	if err != nil {
		return err
	}
	sess, err := report.Open(ctx, d.repo.Storage(), snap, report.Options{From: o.From, Prices: table})
	if err != nil {
		return err
	}
	return d.writeOutputWith(o.Output, func(w io.Writer) error {
		switch {
		case o.Format == "html":
			return report.WriteHTML(ctx, w, sess, report.HTMLOptions{})
		case o.MaxChars > 0:
			return report.WriteMarkdownSized(w, sess, report.SizedOptions{MaxChars: o.MaxChars})
		default:
			return report.WriteMarkdown(ctx, w, sess)
		}
	})
}

// exportTrajectory writes the snapshot as an ATIF trajectory or as
// chat-messages JSONL.
func exportTrajectory(ctx context.Context, d *deps, o exportOptions) error {
	table, err := d.prices()
	if err != nil {
		return err
	}
	doc, entry, err := d.repo.ReadRevision(ctx, o.Rev)
	if err != nil {
		return err
	}
	source, _ := doc["agent"].(string) // the agent's adapter; the header may say "import"
	if source == "" {
		source = entry.Header.Source
	}
	ao := atif.Options{Source: source, Session: entry.Header.Session, Prices: table}
	var data []byte
	if o.Format == "messages" {
		data, err = chat.Write(doc, ao)
	} else {
		data, err = atif.Marshal(doc, ao)
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", o.Rev, err)
	}
	return d.writeOutput(o.Output, data)
}

// exportOTel writes the snapshot as OTLP/JSON traces by the GenAI
// semantic conventions, or sends them to an OTLP/HTTP endpoint, giving
// up after 30 seconds.
func exportOTel(ctx context.Context, d *deps, o exportOptions) error {
	doc, entry, err := d.repo.ReadRevision(ctx, o.Rev)
	if err != nil {
		return err
	}
	source, _ := doc["agent"].(string)
	if source == "" {
		source = entry.Header.Source
	}
	td := otel.Traces(doc, otel.Options{Source: source, Session: entry.Header.Session})
	data, err := otel.Marshal(td)
	if err != nil {
		return fmt.Errorf("export %s: %w", o.Rev, err)
	}
	if o.Endpoint == "" {
		return d.writeOutput(o.Output, data)
	}
	if o.Output != "" {
		if err := d.writeOutput(o.Output, data); err != nil {
			return err
		}
	}
	if err := otel.Send(ctx, &http.Client{Timeout: 30 * time.Second}, o.Endpoint, data); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "sent %s of %s to %s\n", render.Count(otel.SpanCount(td), "span"), o.Rev, otel.Redacted(o.Endpoint))
	return nil
}

// loadReport reads rev's snapshot (gitsnap.Repository.Show) as a report
// holding every turn.
func loadReport(ctx context.Context, d *deps, rev string, o report.Options) (*report.Session, error) {
	snap, err := d.repo.Show(ctx, rev)
	if err != nil {
		return nil, err
	}
	return report.Load(ctx, d.repo.Storage(), snap, o)
}

// parseMaxChars reads --max-chars: a number of characters, or pr for
// GitHub's limit on a pull request's body or comment.
func parseMaxChars(v string) (int, error) {
	if v == "pr" {
		return report.PRMaxChars, nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(v, ",", ""))
	if err != nil || n < report.MinMaxChars {
		return 0, usagef("--max-chars %q: give a number of characters, at least %d, or pr (%d, GitHub's limit)", v, report.MinMaxChars, report.PRMaxChars)
	}
	return n, nil
}

// exportBundle writes the named sessions (or checkpoints) as a bundle.
func exportBundle(ctx context.Context, d *deps, file string, names []string) error {
	s := d.repo
	refs, err := s.BundleRefs(ctx, names)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return usagef("there are no sessions to bundle")
	}
	var buf bytes.Buffer
	n, err := s.WriteBundle(ctx, &buf, refs)
	if err != nil {
		return err
	}
	if file == "-" {
		_, err = d.binaryOut().Write(buf.Bytes())
	} else {
		err = d.writeOutput(file, buf.Bytes())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "wrote %s: %s, %s, %s\n", file, render.Count(len(refs), "ref"), render.Count(n, "object"), render.Count(buf.Len(), "byte"))
	return nil
}
