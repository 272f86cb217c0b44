package cmdline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/worktree"
)

func cmdRestore(e *env) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "print a snapshot's document, as it was saved",
		ArgsUsage: "[REV]",
		Description: `Prints the document saved as REV, JSON-equal to what was given to save, in
canonical form (keys sorted, two-space indent). -o writes it to a file instead. With no
REV: the newest snapshot of --session, else of the default session.

--files writes the snapshot's captured files into the work tree instead. It stays inside
the work tree (no absolute paths, no .., nothing in .git, no symlink followed), keeps any
file whose content differs unless --force, and lists every file written or refused.

Examples:
   git snap restore fix-login~1 > state.json
   git snap restore snap/fix-login/green -o state.json
   git snap restore fix-login~2 --files --dry-run`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "files", Usage: "write the captured files into the work tree"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "with --files, overwrite files that differ"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "with --files, only say what would be written"},
			&cli.StringFlag{Name: "format", Usage: "write the agent's own transcript (`AGENT`: " + strings.Join(agent.Names(), ", ") + ") instead of the document"},
			&cli.StringFlag{Name: "dir", Usage: "with --format, write every transcript file (subagents too) under `DIR`"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: sessionFlagUsage},
			rawFlag(),
		},
		Action: action(e, shape{max: 1}, parseRestore, runRestore),
	}
}

type restoreOptions struct {
	Rev     string
	Session string // whose newest snapshot, when Rev is empty
	Output  string
	Files   bool
	Force   bool
	DryRun  bool
	Format  string // the agent whose transcript to write
	Dir     string // with Format: where to write every transcript file
}

func parseRestore(c *cli.Context) (restoreOptions, error) {
	o := restoreOptions{
		Rev: c.Args().First(), Session: c.String("session"), Output: c.String("output"), Files: c.Bool("files"), Force: c.Bool("force"),
		DryRun: c.Bool("dry-run"), Format: c.String("format"), Dir: c.String("dir"),
	}
	switch {
	case o.Format != "":
	case o.Dir != "":
		return o, usagef("--dir goes with --format")
	case o.Files && o.Output != "":
		return o, usagef("--files writes into the work tree; it does not take -o")
	case !o.Files && (o.Force || o.DryRun):
		return o, usagef("--force and --dry-run go with --files")
	}
	return o, nil
}

// runRestore writes the snapshot's document, its files, or its agent's
// transcript.
func runRestore(ctx context.Context, d *deps, o restoreOptions) (err error) {
	if o.Rev, err = d.revOrSession(ctx, o.Rev, o.Session); err != nil {
		return err
	}
	switch {
	case o.Format != "":
		return restoreTranscript(ctx, d, o)
	case o.Files:
		return restoreFiles(ctx, d, o.Rev, worktree.Options{Force: o.Force, DryRun: o.DryRun})
	}
	return runExport(ctx, d, exportOptions{Rev: o.Rev, Output: o.Output})
}

// restoreFiles writes a snapshot's files into the work tree the
// command runs in.
func restoreFiles(ctx context.Context, d *deps, rev string, o worktree.Options) error {
	doc, _, err := d.repo.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	parts, err := snapshot.Split(doc)
	if err != nil {
		return err
	}
	root := d.paths.WorkTree
	if root == "" {
		p, err := gitstore.Discover(d.workDir, d.gitEnv)
		if err != nil || p.WorkTree == "" {
			return usagef("restore --files needs a work tree; run it inside one")
		}
		root = p.WorkTree
	}
	results, err := worktree.Write(root, parts.Files, o)
	refused := 0
	for _, r := range results {
		if r.Action == worktree.Refused {
			refused++
			fmt.Fprintf(d.out, "refused     %s: %s\n", r.Path, r.Reason)
			continue
		}
		fmt.Fprintf(d.out, "%-11s %s\n", r.Action, r.Path)
	}
	if err != nil {
		return err
	}
	if len(results) == 0 {
		fmt.Fprintln(d.out, "the snapshot holds no files")
	}
	if refused > 0 {
		return fmt.Errorf("%d of %s refused; nothing else was changed for them", refused, render.Count(len(results), "file"))
	}
	return nil
}

// restoreTranscript writes a snapshot back as the agent's transcript:
// the main file to stdout or -o, or every file under --dir.
func restoreTranscript(ctx context.Context, d *deps, o restoreOptions) error {
	s, format := d.repo, o.Format
	a, err := agent.Lookup(format, d.agentEnv)
	if err != nil {
		return usagef("--format: %v", err)
	}
	id, err := s.Resolve(ctx, o.Rev)
	if err != nil {
		return err
	}
	doc, entry, err := s.Read(ctx, id)
	if err != nil {
		return err
	}
	if entry.Header.Source != format {
		return usagef("snapshot %s was recorded from %s, not %s", id.String()[:12], entry.Header.Source, format)
	}
	files, err := agent.RestoreFor(a, doc)
	if err != nil {
		return err
	}
	if o.Dir == "" {
		return d.writeOutput(o.Output, agent.JoinLines(files[""]))
	}
	named, err := agent.NameTranscriptFiles(a, entry.Header.Session, doc, files)
	if err != nil {
		return err
	}
	for name, lines := range named {
		path := d.abs(filepath.Join(o.Dir, filepath.FromSlash(name)))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return err
		}
		if err := d.writeOutput(path, agent.JoinLines(lines)); err != nil {
			return err
		}
		fmt.Fprintf(d.out, "%s\t%d lines\n", path, len(lines))
	}
	return nil
}
