package cmdline

import (
	"context"
	"errors"
	"fmt"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/render"
)

// lineStats counts who wrote the lines a code range added (stats
// --lines).
func lineStats(ctx context.Context, d *deps, o statsOptions) error {
	cr, err := d.repo.CommitRange(ctx, d.workDir, o.Range)
	if err != nil {
		return err
	}
	ch, err := d.repo.RangeLines(ctx, cr, linesProgress(d))
	if err != nil {
		return err
	}
	t := provenance.Count(ch.Files)
	if o.JSON {
		return errors.Join(d.writeJSON(lineStatsToJSON(cr, ch, t)), damaged(ch.Damaged))
	}
	w := d.out
	pct := func(n int) string { return fmt.Sprintf("%3.0f%%", 100*float64(n)/float64(max(t.Lines, 1))) }
	fmt.Fprintf(w, "lines %s added that %s holds: %d\n", cr.Spec, cr.Head.String()[:12], t.Lines)
	for _, k := range []struct {
		name string
		kind provenance.Kind
	}{{"agents", provenance.Agent}, {"mixed", provenance.Mixed}, {"people", provenance.Person}, {"unknown", provenance.Unknown}} {
		n := t.Kinds[k.kind]
		fmt.Fprintf(w, "  %-8s %6d %s\n", k.name+":", n, pct(n))
	}
	if len(t.Models) > 0 {
		fmt.Fprintln(w, "by model:")
	}
	for _, m := range t.Models {
		fmt.Fprintf(w, "  %-24s %6d %s\n", or(m.Model, "(unknown)"), m.Lines, pct(m.Lines))
	}
	if len(t.Sessions) > 0 {
		fmt.Fprintln(w, "by session:")
	}
	for _, st := range t.Sessions {
		fmt.Fprintf(w, "  %-24s %6d %s  %s\n", sessionName(st.Session, st.Remote), st.Lines, pct(st.Lines), st.Agent)
	}
	for _, b := range ch.Binary {
		fmt.Fprintf(d.errOut, "%s is binary: its lines are not counted\n", b)
	}
	for _, p := range ch.Pruned {
		fmt.Fprintf(d.errOut, "session %s lost %d snapshots to a prune: lines they captured count as a person's or unknown\n", sessionName(p.Session, p.Remote), p.Snapshots)
	}
	return damaged(ch.Damaged)
}

// lineStatsJSON is stats --lines --json (docs/schema/stats-lines.schema.json).
type lineStatsJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Range         string             `json:"range"`
	Base          string             `json:"base"`
	Head          string             `json:"head"`
	Lines         linesCountJSON     `json:"lines"`
	ByModel       []linesByModelJSON `json:"by_model"`
	Sessions      []lineSessionJSON  `json:"sessions"`
	Files         []lineFileJSON     `json:"files"`
	Binary        []string           `json:"binary"`
	Pruned        []prunedJSON       `json:"pruned"`
}

type lineSessionJSON struct {
	Name    string             `json:"name"`
	Remote  *string            `json:"remote"`
	Agent   string             `json:"agent"`
	Lines   int                `json:"lines"`
	ByModel []linesByModelJSON `json:"by_model"`
}

type lineFileJSON struct {
	Path  string         `json:"path"`
	Lines linesCountJSON `json:"lines"`
}

func lineStatsToJSON(cr gitsnap.CodeRange, ch *provenance.Changes, t provenance.Tally) lineStatsJSON {
	out := lineStatsJSON{SchemaVersion: render.SchemaVersion, Range: cr.Spec, Base: cr.Base.String(), Head: cr.Head.String(),
		Lines: countsToJSON(t), ByModel: byModelToJSON(t), Sessions: []lineSessionJSON{}, Files: []lineFileJSON{},
		Binary: append([]string{}, ch.Binary...), Pruned: prunedToJSON(ch.Pruned)}
	for _, st := range t.Sessions {
		out.Sessions = append(out.Sessions, lineSessionJSON{Name: st.Session, Remote: nullString(st.Remote), Agent: st.Agent, Lines: st.Lines,
			ByModel: byModelToJSON(provenance.Tally{Models: st.Models})})
	}
	for _, f := range ch.Files {
		out.Files = append(out.Files, lineFileJSON{Path: f.Path, Lines: countsToJSON(provenance.Count([]*provenance.File{f}))})
	}
	return out
}
