package main

import (
	"bytes"
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
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

Examples:
   git snap restore fix-login~1 > state.json
   git snap restore snap/fix-login/green -o state.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
		},
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg gitstore.Config) error {
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

Examples:
   git snap export snap/fix-login/green -o testdata/login-bug.json
   git snap export fix-login --compact | sha256sum`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "compact", Usage: "RFC 8785 canonical JSON, no whitespace"},
			&cli.BoolFlag{Name: "yaml", Usage: "YAML instead of JSON"},
		},
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg gitstore.Config) error {
			if c.Bool("compact") && c.Bool("yaml") {
				return usagef("choose one of --compact and --yaml")
			}
			return e.runExport(c.Context, s, exportOptions{Rev: c.Args().First(), Output: c.String("output"), Compact: c.Bool("compact"), YAML: c.Bool("yaml")})
		}),
	}
}

func (e *env) runExport(ctx context.Context, s *gitstore.Store, o exportOptions) error {
	id, err := s.Resolve(ctx, o.Rev)
	if err != nil {
		return err
	}
	doc, _, err := s.Read(ctx, id)
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
