package cmdline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/git-snap/git-snap/agenttrace"
	"github.com/git-snap/git-snap/cmd/internal/proc"
)

// exportAgentTrace writes who wrote the lines of a code range as Agent
// Trace records, one JSON line per commit.
func exportAgentTrace(ctx context.Context, d *deps, o exportOptions) error {
	cr, err := d.repo.CommitRange(ctx, d.workDir, o.Rev)
	if err != nil {
		return err
	}
	ch, err := d.repo.RangeLines(ctx, cr, linesProgress(d))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range agenttrace.Records(ch, agenttrace.Tool{Name: "git-snap", Version: proc.Version()}) {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return errors.Join(d.writeOutput(o.Output, buf.Bytes()), damaged(ch.Damaged))
}
