package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// runImportTranscripts imports agents' transcripts: every file is found
// and checked first, then each is ingested as its session.
func (e *env) runImportTranscripts(c *cli.Context, s *gitstore.Store, cfg config.Config, name string, args []string) error {
	a, err := agent.Lookup(name, e.agentEnv())
	if err != nil {
		return usagef("--from: %v", err)
	}
	files, err := agent.FindTranscripts(e.dir, args)
	if err != nil {
		return importUsage(err)
	}
	lim := snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes}
	sessions := make([]string, len(files))
	for i, f := range files {
		if sessions[i], err = agent.CheckTranscript(a, f, lim); err != nil {
			return importUsage(err)
		}
	}
	in := agent.Ingest{Store: s, Adapter: a, Limits: lim, MaxReadBytes: int64(cfg.Limits.MaxReadBytes)}
	added := 0
	for i, f := range files {
		if e.terminal {
			fmt.Fprintf(e.stderr, "\rimporting %d/%d %s\x1b[K", i+1, len(files), filepath.Base(f))
		}
		entry, ok, err := in.Import(c.Context, sessions[i], f)
		if err != nil {
			return fmt.Errorf("import %s: %w", f, err)
		}
		if ok {
			added++
			fmt.Fprintf(e.stdout, "%s\t%s#%d\t%s\n", entry.ID, sessions[i], entry.Header.Seq, f)
		} else {
			fmt.Fprintf(e.stdout, "%s\t(nothing new)\t%s\n", sessions[i], f)
		}
	}
	if e.terminal {
		fmt.Fprint(e.stderr, "\r\x1b[K")
	}
	fmt.Fprintf(e.stdout, "%d transcripts, %d imported\n", len(files), added)
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
