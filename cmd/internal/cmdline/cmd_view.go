package cmdline

import (
	"context"
	"net/url"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdView(e *env) *cli.Command {
	return &cli.Command{
		Name:      "view",
		Usage:     "browse sessions in a web browser",
		ArgsUsage: "[REV]",
		Description: `Serves a read-only web viewer of the repository's sessions on 127.0.0.1 and prints
its address: every session (fetched ones too), each session's timeline, snapshots
and their diffs, the files an agent touched. It reads the repository live:
new snapshots show up as they are saved. With REV, the address printed is that
snapshot's timeline. Stop it with Ctrl-C.

It listens on 127.0.0.1 only; --listen ADDR serves another address, and warns
when that one is reachable from other machines.

Examples:
   git snap view
   git snap view --open fix-login
   git snap view --port 8080`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: viewPort, Usage: "listen on 127.0.0.1:`N` (0: any free port)"},
			&cli.StringFlag{Name: "listen", Usage: "listen on `ADDR` (host:port) instead, maybe reachable from other machines"},
			&cli.BoolFlag{Name: "open", Usage: "open the address in the default browser"},
		},
		Action: action(e, shape{max: 1}, parseView, runView),
	}
}

// viewPort is the port view listens on by default (viewer.DefaultPort,
// which git-snap does not link; a test holds the two equal).
const viewPort = 7414

type viewOptions struct {
	Rev    string
	Listen programs.Listen
	Open   bool
}

// apart: the viewer runs in git-snap-view.
func (viewOptions) apart() (programs.Program, string) { return programs.View, "git snap view" }

func parseView(c *cli.Context) (viewOptions, error) {
	o := viewOptions{Rev: c.Args().First(), Open: c.Bool("open")}
	o.Listen = programs.Listen{Port: c.Int("port"), PortSet: c.IsSet("port"), Listen: c.String("listen")}
	if o.Listen.Listen != "" && o.Listen.PortSet {
		return o, usagef("view: give --port or --listen, not both")
	}
	return o, nil
}

// runView serves the viewer until ctx ends (Ctrl-C), in git-snap-view.
func runView(ctx context.Context, d *deps, o viewOptions) error {
	proc.LimitMemory(readMemoryLimit)
	path := "/"
	if o.Rev != "" {
		if _, err := d.store.Resolve(ctx, o.Rev); err != nil {
			return err
		}
		path = "/session/" + url.PathEscape(o.Rev)
	}
	var openSearch func(context.Context) (*gitstore.Store, error)
	if d.openAt != nil { // searches get a store of their own (see viewer.Options)
		openSearch = func(ctx context.Context) (*gitstore.Store, error) {
			st, _, err := d.openAt(ctx, d.workDir)
			return st, err
		}
	}
	table, err := d.prices()
	if err != nil {
		return err
	}
	return d.has.View(ctx, programs.ViewRequest{Store: d.store, Prices: table, OpenSearchStore: openSearch,
		Listen: o.Listen, Path: path, Open: o.Open, Out: d.out, Err: d.errOut})
}
