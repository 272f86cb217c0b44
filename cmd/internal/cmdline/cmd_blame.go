package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

type blameOptions struct {
	Rev       string
	File      string
	Ranges    []string // -L
	Porcelain bool
	JSON      bool
}

func cmdBlame(e *env) *cli.Command {
	return &cli.Command{
		Name:      "blame",
		Usage:     "show which agent session and prompt wrote each line of a file",
		ArgsUsage: "[REV] [--] FILE",
		Description: `For each line of FILE at the code revision REV (HEAD by default), as git blame
gives it: the agent session, snapshot, turn and prompt whose edit wrote it, with the
agent and the model; or the person who wrote it; or unknown.

A line is an agent's when the agent's captured files (a snapshot at each hook call)
introduced that very line, and the commit that brought it into history is one of
the session's commits (a snapshot was taken at it), a rewrite of one (amend, rebase,
squash and fixup, as git snap install git's post-rewrite hook records them), or a
copy of its work made elsewhere (a cherry-pick, a rebase, a squash merge on the
forge: most of what it brought into the file the session wrote before). A line a
person changed again afterwards is theirs; one a person only re-spaced is "mixed".
A line an agent wrote whose commit cannot be tied to its session, or whose
snapshots were pruned, is unknown.

The first blame reads every session's captured files into an index kept under
.git/snap/cache/lines; later ones read only what sessions added since.

--porcelain prints, for each line, git blame's header line, then one "key value"
line for each of kind, session, snapshot, seq, turn, prompt, agent, model, by,
author, why and filename that applies, then the line after a tab.

A file no agent's capture ever touched is said so on stderr, and every line is a
person's (exit status 0). A binary file, a path outside the repository or not in
REV, and a revision that names no commit end with a message and exit status 2. A
session whose snapshots cannot be read is left out and named after the lines, with
exit status 1.

Examples:
   git snap blame auth/login.go
   git snap blame -L 10,20 main~3 -- auth/login.go
   git snap blame --json auth/login.go | jq '.lines[] | select(.kind == "agent")'`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "L", Usage: "only lines `START,END` (or :FUNCNAME, as git blame -L takes them); may be given more than once"},
			&cli.BoolFlag{Name: "porcelain", Usage: "one key a line per blamed line, for tools"},
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
		},
		Action: action(e, shape{min: 1, max: 2, pager: true}, parseBlame, runBlame),
	}
}

func parseBlame(c *cli.Context) (blameOptions, error) {
	o := blameOptions{Ranges: c.StringSlice("L"), Porcelain: c.Bool("porcelain"), JSON: c.Bool("json")}
	args := c.Args().Slice()
	o.File = args[len(args)-1]
	if len(args) == 2 {
		o.Rev = args[0]
	}
	if o.Porcelain && o.JSON {
		return o, usagef("--porcelain and --json are two formats: choose one")
	}
	return o, nil
}

// runBlame blames the file and prints it in the format asked for.
func runBlame(ctx context.Context, d *deps, o blameOptions) error {
	f, err := d.repo.Blame(ctx, gitsnap.BlameOptions{Dir: d.workDir, Rev: o.Rev, File: o.File, Ranges: o.Ranges, Progress: linesProgress(d)})
	if err != nil {
		return err
	}
	if !f.Captured {
		fmt.Fprintf(d.errOut, "no agent session's captures touched %s: every line is a person's or unknown\n", f.Path)
	}
	for _, p := range f.Pruned {
		fmt.Fprintf(d.errOut, "session %s lost %d snapshots to a prune: lines they captured show as a person's or unknown\n", sessionName(p.Session, p.Remote), p.Snapshots)
	}
	switch {
	case o.JSON:
		err = d.writeJSON(blameToJSON(f))
	case o.Porcelain:
		err = writeBlamePorcelain(d.out, f)
	default:
		err = writeBlame(d.out, f)
	}
	return errors.Join(err, damaged(f.Damaged))
}

// damaged is the error naming the sessions left out, nil for none: the
// answer is given without them, and the exit status says it is short.
func damaged(d *storage.DamagedSessions) error {
	if d == nil {
		return nil
	}
	return d
}

// linesProgress shows how far a first reading of many sessions' lines
// has got, on a terminal.
func linesProgress(d *deps) func(done, of int) {
	p := &progressLine{w: d.progress}
	return func(done, of int) {
		switch {
		case of < 20:
		case done < of:
			p.show("reading the lines of %d/%d sessions (once)", done, of)
		default:
			p.clear()
		}
	}
}

func sessionName(session, remote string) string {
	if remote != "" {
		return remote + "/" + session
	}
	return session
}

// who is what the human format shows of a line's writer: the session,
// its snapshot and turn for an agent's line (marked ~ when a person
// re-spaced it), the author for a person's, "unknown".
func who(l provenance.Line) string {
	switch l.Kind {
	case provenance.Agent, provenance.Mixed:
		e := l.Edit
		s := fmt.Sprintf("%s#%d t%d", sessionName(e.Session, e.Remote), e.Seq, e.Turn)
		if l.Kind == provenance.Mixed {
			s = "~" + s
		}
		return s
	case provenance.Person:
		return l.Author
	}
	return "unknown"
}

// writeBlame writes git blame's layout, the agent's edit where a person
// would be, then what each edit was: its agent, model and prompt.
func writeBlame(w io.Writer, f *provenance.File) error {
	width, digits := 0, len(strconv.Itoa(maxLine(f.Lines)))
	for _, l := range f.Lines {
		width = max(width, len([]rune(who(l))))
	}
	var edits []*provenance.Edit
	seen := map[*provenance.Edit]bool{}
	for _, l := range f.Lines {
		name := who(l)
		fmt.Fprintf(w, "%s (%s%s %*d) %s\n", l.Commit.String()[:8], name, strings.Repeat(" ", width-len([]rune(name))), digits, l.N, l.Text)
		if l.Edit != nil && !seen[l.Edit] {
			seen[l.Edit] = true
			edits = append(edits, l.Edit)
		}
	}
	if len(edits) > 0 {
		fmt.Fprintln(w)
	}
	for _, e := range edits {
		fmt.Fprintf(w, "%s#%d t%d  %s  %s  %s  %s\n", sessionName(e.Session, e.Remote), e.Seq, e.Turn, e.Snapshot.Short(), e.Agent, or(e.Model, "-"), e.Prompt)
	}
	return nil
}

func maxLine(lines []provenance.Line) int {
	n := 0
	for _, l := range lines {
		n = max(n, l.N)
	}
	return n
}

// writeBlamePorcelain writes each line as git blame --line-porcelain
// does: its header, then "key value" lines, then the line after a tab.
func writeBlamePorcelain(w io.Writer, f *provenance.File) error {
	for _, l := range f.Lines {
		fmt.Fprintf(w, "%s %d %d\n", l.Commit, l.OrigLine, l.N)
		kv := func(k, v string) {
			if v != "" {
				fmt.Fprintf(w, "%s %s\n", k, oneLine(v))
			}
		}
		kv("kind", string(l.Kind))
		if e := l.Edit; e != nil {
			kv("session", e.Session)
			kv("remote", e.Remote)
			kv("snapshot", e.Snapshot.String())
			kv("seq", strconv.Itoa(e.Seq))
			kv("turn", strconv.Itoa(e.Turn))
			kv("prompt", e.Prompt)
			kv("agent", e.Agent)
			kv("model", e.Model)
			kv("by", l.By)
		}
		kv("author", l.Author)
		kv("why", l.Why)
		kv("filename", l.OrigPath)
		fmt.Fprintf(w, "\t%s\n", l.Text)
	}
	return nil
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// blameJSON is blame --json (docs/schema/blame.schema.json).
type blameJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Path          string             `json:"path"`
	Rev           string             `json:"rev"`
	Commit        string             `json:"commit"`
	Captured      bool               `json:"captured"`
	Lines         []blameLineJSON    `json:"lines"`
	Counts        linesCountJSON     `json:"counts"`
	Pruned        []prunedJSON       `json:"pruned"`
	Edits         []blameEditJSON    `json:"edits"`
	ByModel       []linesByModelJSON `json:"by_model"`
}

type blameLineJSON struct {
	Line     int     `json:"line"`
	Text     string  `json:"text"`
	Commit   string  `json:"commit"`
	OrigPath string  `json:"orig_path"`
	OrigLine int     `json:"orig_line"`
	Author   string  `json:"author"`
	Time     *string `json:"time"`
	Kind     string  `json:"kind"`
	Edit     *int    `json:"edit"`
	By       *string `json:"by"`
	Why      *string `json:"why"`
}

type blameEditJSON struct {
	Session  string  `json:"session"`
	Remote   *string `json:"remote"`
	Snapshot string  `json:"snapshot"`
	Seq      int     `json:"seq"`
	Turn     int     `json:"turn"`
	Prompt   string  `json:"prompt"`
	Agent    string  `json:"agent"`
	Model    *string `json:"model"`
	Time     *string `json:"time"`
	Lines    int     `json:"lines"`
}

type prunedJSON struct {
	Session   string  `json:"session"`
	Remote    *string `json:"remote"`
	Snapshots int     `json:"snapshots"`
}

func blameToJSON(f *provenance.File) blameJSON {
	out := blameJSON{SchemaVersion: render.SchemaVersion, Path: f.Path, Rev: f.Rev, Commit: f.Commit.String(), Captured: f.Captured,
		Lines: []blameLineJSON{}, Pruned: prunedToJSON(f.Pruned), Edits: []blameEditJSON{}}
	index := map[*provenance.Edit]int{}
	for _, l := range f.Lines {
		j := blameLineJSON{Line: l.N, Text: l.Text, Commit: l.Commit.String(), OrigPath: l.OrigPath, OrigLine: l.OrigLine,
			Author: l.Author, Time: render.TimeJSON(l.Time), Kind: string(l.Kind), By: nullString(l.By), Why: nullString(l.Why)}
		if e := l.Edit; e != nil {
			i, ok := index[e]
			if !ok {
				i = len(out.Edits)
				index[e] = i
				out.Edits = append(out.Edits, blameEditJSON{Session: e.Session, Remote: nullString(e.Remote), Snapshot: e.Snapshot.String(), Seq: e.Seq,
					Turn: e.Turn, Prompt: e.Prompt, Agent: e.Agent, Model: nullString(e.Model), Time: render.TimeJSON(e.Time)})
			}
			out.Edits[i].Lines++
			j.Edit = &i
		}
		out.Lines = append(out.Lines, j)
	}
	t := provenance.Count([]*provenance.File{f})
	out.Counts, out.ByModel = countsToJSON(t), byModelToJSON(t)
	return out
}

func prunedToJSON(ps []provenance.Pruned) []prunedJSON {
	out := []prunedJSON{}
	for _, p := range ps {
		out = append(out, prunedJSON{Session: p.Session, Remote: nullString(p.Remote), Snapshots: p.Snapshots})
	}
	return out
}

// linesCountJSON counts lines by who wrote them.
type linesCountJSON struct {
	Lines   int `json:"lines"`
	Agent   int `json:"agent"`
	Mixed   int `json:"mixed"`
	Person  int `json:"person"`
	Unknown int `json:"unknown"`
}

type linesByModelJSON struct {
	Model *string `json:"model"`
	Lines int     `json:"lines"`
	Share float64 `json:"share"`
}

func countsToJSON(t provenance.Tally) linesCountJSON {
	return linesCountJSON{Lines: t.Lines, Agent: t.Kinds[provenance.Agent], Mixed: t.Kinds[provenance.Mixed], Person: t.Kinds[provenance.Person], Unknown: t.Kinds[provenance.Unknown]}
}

func byModelToJSON(t provenance.Tally) []linesByModelJSON {
	out := []linesByModelJSON{}
	for _, m := range t.Models {
		out = append(out, linesByModelJSON{Model: nullString(m.Model), Lines: m.Lines, Share: m.Share})
	}
	return out
}
