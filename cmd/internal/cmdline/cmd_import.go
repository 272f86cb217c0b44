package cmdline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/atif"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

type importOptions struct {
	Files    []string
	Session  string
	Label    string
	From     string    // an agent: the files are its transcripts
	Progress io.Writer // where a line of progress goes, or nil
	// PackBytes is how large a pack of an import --from grows before it
	// is put in place (0: capture.DefaultPackBytes); a hidden flag, for
	// the tests that kill an import between packs.
	PackBytes int64
}

func cmdImport(e *env) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "save exported documents as snapshots",
		ArgsUsage: "FILE…",
		Description: `Validates every FILE first, then saves each as a snapshot of --session (by
default the file's name without extension). A document the session already holds is
not added again, so importing the same file twice adds nothing.

With --from AGENT, FILE is an agent's transcript, or a directory
searched for them (e.g. ~/.claude/projects): each becomes its session (named by the
session id), Claude Code subagent transcripts with their parent. Sessions are read in
parallel into one pack, and their refs move once it is in place, each to the whole
session. Importing again adds only what the transcripts gained since, so an import
that was interrupted or killed goes on where it stopped.

With --from atif, each FILE is an ATIF trajectory (Agent Trajectory Interchange Format,
as Devin, Copilot Chat or git snap export --format atif write it), saved as the session
named by --session, its session_id or the file's name. One that git-snap exported is
restored as it was; another is read step by step into messages.

Examples:
   git snap import testdata/login-bug.json
   git snap import --session review a.json b.json
   git snap import --from claude-code ~/.claude/projects
   git snap import --from atif trajectory.json`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "the session `NAME` (default: each file's name)"},
			&cli.StringFlag{Name: "label", Aliases: []string{"l"}, Value: "import", Usage: "label of the new snapshots"},
			&cli.StringFlag{Name: "from", Usage: "the files are transcripts of `AGENT`: " + strings.Join(agent.Names(), ", ") + ", or ATIF trajectories (atif)"},
			&cli.Int64Flag{Name: "pack-bytes", Hidden: true},
		}, progressFlags()...),
		Action: action(e, shape{min: 1, max: -1}, e.parseImport, runImport),
	}
}

func (e *env) parseImport(c *cli.Context) (importOptions, error) {
	return importOptions{Files: c.Args().Slice(), Session: c.String("session"), Label: c.String("label"), From: c.String("from"), Progress: e.progressTo(c), PackBytes: c.Int64("pack-bytes")}, nil
}

// runImport saves documents, bundles or, with --from, an agent's
// transcripts; every file is checked before anything is written.
func runImport(ctx context.Context, d *deps, o importOptions) error {
	if o.From == atif.Agent {
		return runImportATIF(ctx, d, o)
	}
	if o.From != "" {
		return runImportTranscripts(ctx, d, o)
	}
	s := d.repo
	type item struct {
		file, session string
		doc           map[string]any
	}
	var items []item
	var bundles []string
	for _, f := range o.Files { // all checked before anything is written
		if isBundle(d.abs(f)) {
			bundles = append(bundles, f)
			continue
		}
		session := o.Session
		if session == "" {
			session = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			if err := snapshot.CheckName("session", session); err != nil {
				return usagef("%s: the file name does not make a session name (%v); give --session NAME", f, err)
			}
		} else if err := snapshot.CheckName("session", session); err != nil {
			return usagef("%v", err)
		}
		doc, err := readDocument(d.in, d.dir, f, d.cfg)
		if err != nil {
			return err
		}
		items = append(items, item{f, session, doc})
	}
	for _, b := range bundles {
		f, err := agent.OpenRegular(d.abs(b)) // streamed, not read whole
		if err != nil {
			return usagef("cannot read %s: %v", b, err)
		}
		res, err := s.ImportBundle(ctx, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
		printPull(d.out, res)
	}
	for _, it := range items {
		entry, added, err := s.SaveNew(ctx, it.doc, storage.SaveOptions{Session: it.session, Label: o.Label, Source: "import"})
		if err != nil {
			return fmt.Errorf("import %s: %w", it.file, err)
		}
		if added {
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s\n", entry.ID, it.session, entry.Header.Seq, it.file)
		} else {
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s (already there, nothing added)\n", entry.ID, it.session, entry.Header.Seq, it.file)
		}
	}
	return nil
}

// isBundle tells a git bundle by its name or its first line.
func isBundle(path string) bool {
	if strings.HasSuffix(path, ".bundle") {
		return true // a file so named that is not one is refused as a bundle
	}
	f, err := agent.OpenRegular(path) // never blocks on a FIFO
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return strings.HasPrefix(string(head[:n]), "# v2 git bundle") || strings.HasPrefix(string(head[:n]), "# v3 git bundle")
}

// runImportATIF saves ATIF trajectories, each as its session; every
// file is read and checked before anything is written.
func runImportATIF(ctx context.Context, d *deps, o importOptions) error {
	type item struct {
		file, session, source string
		doc                   map[string]any
	}
	var items []item
	for _, f := range o.Files {
		name, data, err := readInput(d.in, d.dir, f, d.cfg)
		if err != nil {
			return err
		}
		doc, session, err := atif.Import(data, limits(d.cfg))
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		if _, err := snapshot.Split(doc); err != nil {
			return usagef("%s: %v", name, err)
		}
		switch {
		case o.Session != "":
			session = o.Session
		case session == "" || snapshot.CheckName("session", session) != nil:
			session = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			session = strings.TrimSuffix(session, ".atif")
		}
		if err := snapshot.CheckName("session", session); err != nil {
			return usagef("%s: no session name (%v); give --session NAME", f, err)
		}
		source, _ := doc["agent"].(string)
		if source == "" {
			source = atif.Agent
		}
		// Its numbers as a snapshot keeps them, checked before any file
		// is written: one a reader refuses would hide the session.
		counted := snapshot.Header{Session: session, Seq: 1, Time: d.now(), Counted: true, Totals: agent.CountTotals(doc, source)}
		if err := gitstore.CheckHeader(counted); err != nil {
			return usagef("%s: %v", name, err)
		}
		items = append(items, item{f, session, source, doc})
	}
	for _, it := range items {
		entry, added, err := d.repo.SaveNew(ctx, it.doc, storage.SaveOptions{Session: it.session, Label: o.Label, Source: it.source})
		if err != nil {
			return fmt.Errorf("import %s: %w", it.file, err)
		}
		if added {
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s\n", entry.ID, it.session, entry.Header.Seq, it.file)
		} else {
			fmt.Fprintf(d.out, "%s\t%s#%d\t%s (already there, nothing added)\n", entry.ID, it.session, entry.Header.Seq, it.file)
		}
	}
	return nil
}
