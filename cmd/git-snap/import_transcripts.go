package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

var threadID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// runImportTranscripts imports agents' transcripts: every file is found
// and checked first, then each is ingested as its session.
func (e *env) runImportTranscripts(c *cli.Context, s *gitstore.Store, cfg gitstore.Config, name string, args []string) error {
	a, err := agent.Lookup(name, e.agentEnv())
	if err != nil {
		return usagef("--from: %v", err)
	}
	files, err := findTranscripts(e, args)
	if err != nil {
		return err
	}
	lim := snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes}
	sessions := make([]string, len(files))
	for i, f := range files {
		if sessions[i], err = checkTranscript(a, f, lim); err != nil {
			return err
		}
	}
	in := agent.Ingest{Store: s, Adapter: a, Limits: lim}
	added := 0
	for i, f := range files {
		if e.terminal {
			fmt.Fprintf(e.stderr, "\rimporting %d/%d %s\x1b[K", i+1, len(files), filepath.Base(f))
		}
		p := agent.Payload{Agent: a.Name(), Event: "import", SessionID: sessions[i], TranscriptPath: f}
		entry, ok, err := in.Run(c.Context, p, gitstore.SaveOptions{})
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

// findTranscripts expands directories into the main transcripts below
// them; subagent transcripts come along with their parent.
func findTranscripts(e *env, args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, usagef("cannot read %s: %v", arg, err)
		}
		if !fi.IsDir() {
			out = append(out, path)
			continue
		}
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "subagents" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, usagef("no .jsonl transcripts in %s", strings.Join(args, " "))
	}
	return out, nil
}

// checkTranscript checks that a file is a transcript of the agent and
// names its session: the id in its name, else its first record's.
func checkTranscript(a agent.Adapter, path string, lim snapshot.Limits) (string, error) {
	lines, _, err := agent.Lines(path, 0)
	if err != nil {
		return "", usagef("cannot read %s: %v", path, err)
	}
	var first []any
	for _, l := range lines[:min(len(lines), 20)] {
		first = append(first, agent.Element(l, lim))
	}
	if err := a.Check(first); err != nil {
		return "", usagef("%s is not a %s transcript: %v", path, a.Name(), err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if id := threadID.FindString(name); id != "" {
		name = id
	}
	if snapshot.CheckName("session", name) != nil {
		return "", usagef("%s: its name does not make a session name", path)
	}
	return name, nil
}
