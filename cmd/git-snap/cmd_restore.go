package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/worktree"
)

type exportOptions struct {
	Rev     string
	Output  string
	Compact bool
	YAML    bool
}

func cmdRestore(e *env) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "print a snapshot's document, as it was saved",
		ArgsUsage: "REV",
		Description: `Prints the document saved as REV, JSON-equal to what was given to save, in
canonical form (keys sorted, two-space indent). -o writes it to a file instead.

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
			&cli.StringFlag{Name: "format", Usage: "write the agent's own transcript (`AGENT`: claude-code or codex) instead of the document"},
			&cli.StringFlag{Name: "dir", Usage: "with --format, write every transcript file (subagents too) under `DIR`"},
		},
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			if f := c.String("format"); f != "" {
				return e.runRestoreTranscript(c, s, f)
			}
			if c.String("dir") != "" {
				return usagef("--dir goes with --format")
			}
			if c.Bool("files") {
				if c.String("output") != "" {
					return usagef("--files writes into the work tree; it does not take -o")
				}
				return e.runRestoreFiles(c, s, c.Args().First(), worktree.Options{Force: c.Bool("force"), DryRun: c.Bool("dry-run")})
			}
			if c.Bool("force") || c.Bool("dry-run") {
				return usagef("--force and --dry-run go with --files")
			}
			return e.runExport(c.Context, s, exportOptions{Rev: c.Args().First(), Output: c.String("output")})
		}),
	}
}

func cmdExport(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a snapshot's document to a file, to share or keep as a fixture",
		ArgsUsage: "REV",
		Description: `Writes the document saved as REV: canonical indented JSON by default,
RFC 8785 canonical bytes with --compact, or YAML. import reads it back.

--bundle FILE writes a git bundle instead: the sessions and checkpoints named (all
sessions when none is) with their history, one file to attach to an issue or a pull
request. git snap import FILE.bundle reads it back; git bundle and git fetch read it too.

Examples:
   git snap export snap/fix-login/green -o testdata/login-bug.json
   git snap export fix-login --compact | sha256sum
   git snap export --bundle login-bug.bundle snap/fix-login/green`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "compact", Usage: "RFC 8785 canonical JSON, no whitespace"},
			&cli.BoolFlag{Name: "yaml", Usage: "YAML instead of JSON"},
			&cli.StringFlag{Name: "bundle", Usage: "write a git bundle to `FILE` of the sessions and checkpoints named"},
		},
		Action: func(c *cli.Context) error {
			if c.String("bundle") != "" {
				return e.storeAction(0, -1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
					return e.runExportBundle(c, s, c.String("bundle"), c.Args().Slice())
				})(c)
			}
			return e.storeAction(1, 1, e.exportDocument)(c)
		},
	}
}

func (e *env) exportDocument(c *cli.Context, s *gitstore.Store, _ config.Config) error {
	if c.Bool("compact") && c.Bool("yaml") {
		return usagef("choose one of --compact and --yaml")
	}
	return e.runExport(c.Context, s, exportOptions{Rev: c.Args().First(), Output: c.String("output"), Compact: c.Bool("compact"), YAML: c.Bool("yaml")})
}

// runExportBundle writes the named sessions (or checkpoints) as a bundle.
func (e *env) runExportBundle(c *cli.Context, s *gitstore.Store, file string, names []string) error {
	var refs []string
	if len(names) == 0 {
		all, err := s.Sessions(c.Context)
		if err != nil {
			return err
		}
		for _, sess := range all {
			refs = append(refs, sess.Ref)
		}
	}
	for _, n := range names {
		if sess, cp, ok := strings.Cut(strings.TrimPrefix(n, "snap/"), "/"); ok {
			refs = append(refs, gitstore.TagPrefix+sess+"/"+cp)
			continue
		}
		refs = append(refs, s.SessionRef(n))
	}
	if len(refs) == 0 {
		return usagef("there are no sessions to bundle")
	}
	var buf bytes.Buffer
	n, err := s.WriteBundle(c.Context, &buf, refs)
	if err != nil {
		return err
	}
	if err := e.writeOutput(file, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d refs, %d objects, %d bytes\n", file, len(refs), n, buf.Len())
	return nil
}

func (e *env) runExport(ctx context.Context, s *gitstore.Store, o exportOptions) error {
	doc, _, err := s.ReadRevision(ctx, o.Rev)
	if err != nil {
		return err
	}
	var data []byte
	switch {
	case o.YAML:
		var buf bytes.Buffer
		if err := writeYAML(&buf, doc); err != nil {
			return err
		}
		data = buf.Bytes()
	case o.Compact:
		if data, err = snapshot.Marshal(doc); err != nil {
			return err
		}
	default:
		if data, err = snapshot.MarshalIndent(doc); err != nil {
			return err
		}
	}
	return e.writeOutput(o.Output, data)
}

// runRestoreFiles writes a snapshot's files into the work tree the
// command runs in.
func (e *env) runRestoreFiles(c *cli.Context, s *gitstore.Store, rev string, o worktree.Options) error {
	doc, _, err := s.ReadRevision(c.Context, rev)
	if err != nil {
		return err
	}
	parts, err := snapshot.Split(doc)
	if err != nil {
		return err
	}
	root := s.Paths().WorkTree
	if root == "" {
		p, err := gitstore.Discover(e.workDir(c), e.gitEnv())
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
			fmt.Fprintf(e.stdout, "refused   %s: %s\n", r.Path, r.Reason)
			continue
		}
		fmt.Fprintf(e.stdout, "%-9s %s\n", r.Action, r.Path)
	}
	if err != nil {
		return err
	}
	if len(results) == 0 {
		fmt.Fprintln(e.stdout, "the snapshot holds no files")
	}
	if refused > 0 {
		return fmt.Errorf("%d of %d files refused; nothing else was changed for them", refused, len(results))
	}
	return nil
}

// runRestoreTranscript writes a snapshot back as the agent's transcript:
// the main file to stdout or -o, or every file under --dir.
func (e *env) runRestoreTranscript(c *cli.Context, s *gitstore.Store, format string) error {
	if _, err := agent.Lookup(format, e.agentEnv()); err != nil {
		return usagef("--format: %v", err)
	}
	id, err := s.Resolve(c.Context, c.Args().First())
	if err != nil {
		return err
	}
	doc, entry, err := s.Read(c.Context, id)
	if err != nil {
		return err
	}
	if entry.Header.Source != format {
		return usagef("snapshot %s was recorded from %s, not %s", id.String()[:12], entry.Header.Source, format)
	}
	files, err := agent.Restore(doc)
	if err != nil {
		return err
	}
	join := func(lines [][]byte) []byte {
		var b bytes.Buffer
		for _, l := range lines {
			b.Write(l)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	dir := c.String("dir")
	if dir == "" {
		return e.writeOutput(c.String("output"), join(files[""]))
	}
	for name, lines := range files {
		if name == "" {
			name = entry.Header.Session + ".jsonl"
		}
		if err := snapshot.CheckPath(name); err != nil {
			return fmt.Errorf("transcript file %q: %w", name, err)
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.dir, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return err
		}
		if err := e.writeOutput(path, join(lines)); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\t%d lines\n", path, len(lines))
	}
	return nil
}
