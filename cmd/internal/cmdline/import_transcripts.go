package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	fastzlib "github.com/klauspost/compress/zlib"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
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
	files, cleanup, err := exportDatabases(ctx, o.From, d.dir, o.Files)
	defer cleanup()
	if err != nil {
		return err
	}
	plan, err := agent.PlanImport(a, d.dir, files, lim)
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
	// An import allocates much and keeps little: under the memory limit,
	// a collection per megabytes kept, not per few, costs a tenth of
	// its time less, and fewer stops that wait for a busy machine.
	debug.SetGCPercent(importGCPercent)
	progress := &importProgress{line: progressLine{w: o.Progress}, start: time.Now()}
	defer progress.line.clear() // an error, an interrupt, is said on a line of its own
	added, done := 0, 0
	im := capture.Importer{Adapter: a, Limits: lim, MaxReadBytes: int64(d.cfg.Limits.MaxReadBytes), PackBytes: o.PackBytes,
		Warn: func(msg string) {
			progress.line.clear()
			fmt.Fprintf(d.errOut, "git-snap: note: %s\n", msg)
		},
		Progress:    progress.show,
		NewDeflater: fastDeflater,
		Done: func(r capture.ImportResult) {
			progress.line.clear() // stdout may be the same terminal
			done++
			if r.Added {
				added++
				fmt.Fprintf(d.out, "%s\t%s#%d\t%s\n", r.Entry.ID, r.Item.Session, r.Entry.Header.Seq, r.Item.Path)
			} else {
				fmt.Fprintf(d.out, "%s\t(nothing new)\t%s\n", r.Item.Session, r.Item.Path)
			}
		},
	}
	if err := d.repo.Import(ctx, im, plan.Items); err != nil {
		progress.line.clear()
		if errors.Is(err, context.Canceled) && done > 0 {
			fmt.Fprintf(d.errOut, "git-snap: note: %d of %s in place before the stop; the same import goes on from there\n", done, render.Count(len(plan.Items), "transcript"))
		}
		return importUsage(err)
	}
	fmt.Fprintf(d.out, "%s, %d imported", render.Count(len(plan.Items), "transcript"), added)
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(d.out, ", %s skipped (not transcripts)", render.Count(len(plan.Skipped), "file"))
	}
	fmt.Fprintln(d.out)
	return nil
}

// fastDeflater compresses an import's pack with klauspost/compress's
// zlib: a third of the standard library's time on objects of a few
// kilobytes, whose Huffman tables cost the standard library most of it
// (measured on a real transcript's records; the output is 2% larger).
// It is linked here, not in gitstore, so that the hook program, which
// never imports, does not run its init.
func fastDeflater(w io.Writer) gitstore.Deflater {
	z, _ := fastzlib.NewWriterLevel(w, fastzlib.BestSpeed) // a valid level: no error
	return z
}

// importGCPercent is the collector's GOGC during an import.
const importGCPercent = 400

// importProgress draws an import's progress line: sessions and
// megabytes read, the rate, and the time left at that rate; at most ten
// times a second.
type importProgress struct {
	line  progressLine
	start time.Time
	drawn time.Time
}

func (p *importProgress) show(at capture.ImportProgress) {
	now := time.Now()
	if now.Sub(p.drawn) < 100*time.Millisecond && at.Sessions < at.Of {
		return
	}
	p.drawn = now
	const mb = 1e6
	rate := float64(at.Bytes) / mb / max(now.Sub(p.start).Seconds(), 1e-3)
	left := ""
	if rate > 0 && at.Sessions < at.Of {
		left = fmt.Sprintf(", %s left", (time.Duration(float64(at.Total-at.Bytes)/mb/rate) * time.Second).Round(time.Second))
	}
	p.line.show("importing %d/%d sessions, %.1f/%.1f MB, %.1f MB/s%s", at.Sessions, at.Of, float64(at.Bytes)/mb, float64(at.Total)/mb, rate, left)
}

// importUsage makes an import refused for its input a usage error.
func importUsage(err error) error {
	var ie *agent.ImportError
	if errors.As(err, &ie) {
		return usagef("%v", err)
	}
	return err
}
