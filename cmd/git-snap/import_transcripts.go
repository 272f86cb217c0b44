package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"

	"github.com/git-snap/git-snap/cmd/internal/proc"
)

// runImportTranscripts imports agents' transcripts: every file is found
// and checked first, then each is ingested as its session.
func runImportTranscripts(ctx context.Context, d *deps, o importOptions) error {
	a, err := agent.Lookup(o.From, d.agentEnv)
	if err != nil {
		return usagef("--from: %v", err)
	}
	lim := snapshot.Limits{MaxDepth: d.cfg.Limits.MaxDepth, MaxValueBytes: d.cfg.Limits.MaxValueBytes}
	plan, err := agent.PlanImport(a, d.dir, o.Files, lim)
	if err != nil {
		return importUsage(err)
	}
	for _, s := range plan.Skipped {
		fmt.Fprintf(d.errOut, "git-snap: skipped %s\n", s.Reason)
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(d.errOut, "git-snap: note: %s\n", n)
	}
	proc.LimitMemory(proc.StepMemoryLimit)
	in := capture.Ingest{Store: d.store, Adapter: a, Limits: lim, MaxReadBytes: int64(d.cfg.Limits.MaxReadBytes),
		Warn: func(msg string) { fmt.Fprintf(d.errOut, "git-snap: note: %s\n", msg) }}
	added := 0
	progress := &progressLine{w: o.Progress}
	defer progress.clear() // an error, an interrupt, is said on a line of its own
	for i, it := range plan.Items {
		progress.show("importing %d/%d %s", i+1, len(plan.Items), filepath.Base(it.Path))
		session, renamed, err := in.Claim(ctx, it.Session, it.Path)
		if err != nil {
			return fmt.Errorf("import %s: %w", it.Path, err)
		}
		if renamed {
			progress.clear()
			fmt.Fprintf(d.errOut, "git-snap: note: session %s holds another transcript than %s: imported as session %s\n", it.Session, it.Path, session)
		}
		it.Session = session
		entry, ok, err := in.Import(ctx, it.Session, it.Path)
		if err != nil {
			return fmt.Errorf("import %s: %w", it.Path, err)
		}
		progress.clear() // stdout may be the same terminal
		if ok {
			added++
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s\n", entry.ID, it.Session, entry.Header.Seq, it.Path)
		} else {
			fmt.Fprintf(d.out, "%s\t(nothing new)\t%s\n", it.Session, it.Path)
		}
	}
	fmt.Fprintf(d.out, "%s, %d imported", render.Count(len(plan.Items), "transcript"), added)
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(d.out, ", %s skipped (not transcripts)", render.Count(len(plan.Skipped), "file"))
	}
	fmt.Fprintln(d.out)
	return nil
}

// importUsage makes an import refused for its input a usage error.
func importUsage(err error) error {
	var ie *agent.ImportError
	if errors.As(err, &ie) {
		return usagef("%v", err)
	}
	return err
}
