package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

// runImportTranscripts imports agents' transcripts: every file is found
// and checked first, then each is ingested as its session.
func runImportTranscripts(ctx context.Context, d *deps, o importOptions) error {
	a, err := agent.Lookup(o.From, d.agentEnv)
	if err != nil {
		return usagef("--from: %v", err)
	}
	files, err := agent.FindAgentTranscripts(a, d.dir, o.Files)
	if err != nil {
		return importUsage(err)
	}
	lim := snapshot.Limits{MaxDepth: d.cfg.Limits.MaxDepth, MaxValueBytes: d.cfg.Limits.MaxValueBytes}
	sessions := make([]string, len(files))
	for i, f := range files {
		if sessions[i], err = agent.CheckTranscript(a, f, lim); err != nil {
			return importUsage(err)
		}
	}
	in := agent.Ingest{Store: d.store, Adapter: a, Limits: lim, MaxReadBytes: int64(d.cfg.Limits.MaxReadBytes)}
	added := 0
	for i, f := range files {
		if d.progress != nil {
			fmt.Fprintf(d.progress, "\rimporting %d/%d %s\x1b[K", i+1, len(files), filepath.Base(f))
		}
		entry, ok, err := in.Import(ctx, sessions[i], f)
		if err != nil {
			return fmt.Errorf("import %s: %w", f, err)
		}
		if ok {
			added++
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s\n", entry.ID, sessions[i], entry.Header.Seq, f)
		} else {
			fmt.Fprintf(d.out, "%s\t(nothing new)\t%s\n", sessions[i], f)
		}
	}
	if d.progress != nil {
		fmt.Fprint(d.progress, "\r\x1b[K")
	}
	fmt.Fprintf(d.out, "%d transcripts, %d imported\n", len(files), added)
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
