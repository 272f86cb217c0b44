package cmdline

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/internal/refwatch"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/viewer"
)

func cmdView(e *env) *cli.Command {
	return &cli.Command{
		Name:      "view",
		Usage:     "browse sessions in a web browser",
		ArgsUsage: "[REV]",
		Description: `Serves a read-only web viewer of the repository's sessions on 127.0.0.1 and prints
its address: every session (fetched ones too), each session's timeline, snapshots
and their diffs, the files an agent touched, and a file of the code with each line
marked by the session and prompt that wrote it (/blame/PATH, as git snap blame
tells it; ?rev=REV for another commit than HEAD). It reads the repository live:
new snapshots show up as they are saved. With REV, the address printed is that
snapshot's timeline. Stop it with Ctrl-C.

It listens on 127.0.0.1 only; --listen ADDR serves another address, and warns
when that one is reachable from other machines.

Examples:
   git snap view
   git snap view --open fix-login
   git snap view --port 8080`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", Value: viewer.DefaultPort, Usage: "listen on 127.0.0.1:`N` (0: any free port)"},
			&cli.StringFlag{Name: "listen", Usage: "listen on `ADDR` (host:port) instead, maybe reachable from other machines"},
			&cli.BoolFlag{Name: "open", Usage: "open the address in the default browser"},
		},
		Action: action(e, shape{max: 1}, parseView, runView),
	}
}

type viewOptions struct {
	Rev    string
	Listen viewer.ListenOptions
	Open   bool
}

func parseView(c *cli.Context) (viewOptions, error) {
	o := viewOptions{Rev: c.Args().First(), Open: c.Bool("open")}
	o.Listen = viewer.ListenOptions{Port: c.Int("port"), PortSet: c.IsSet("port"), Listen: c.String("listen")}
	if o.Listen.Listen != "" && o.Listen.PortSet {
		return o, usagef("view: give --port or --listen, not both")
	}
	return o, nil
}

// runView serves the viewer until ctx ends (Ctrl-C).
func runView(ctx context.Context, d *deps, o viewOptions) error {
	proc.LimitMemory(readMemoryLimit)
	path := "/"
	if o.Rev != "" {
		if _, err := d.repo.Resolve(ctx, o.Rev); err != nil {
			return err
		}
		path = "/session/" + url.PathEscape(o.Rev)
	}
	table, err := d.prices()
	if err != nil {
		return err
	}
	opts := viewer.Options{Prices: table, Blame: func(ctx context.Context, rev, path string) (*provenance.File, error) {
		return d.repo.Blame(ctx, gitsnap.BlameOptions{Rev: rev, File: path})
	}}
	if d.openAt != nil { // searches get a store of their own (see viewer.Options)
		opts.OpenSearchStore = func(ctx context.Context) (storage.ReadCloser, error) {
			repo, _, err := d.openAt(ctx, d.workDir)
			if err != nil {
				return nil, err
			}
			return repo.Storage(), nil
		}
	}
	return serveView(ctx, d, o, path, opts)
}

// serveView listens where o says, prints the address of the page at
// path, opens it in a browser when asked, and serves until ctx ends; it
// warns when the address is reachable from other machines.
func serveView(ctx context.Context, d *deps, o viewOptions, path string, opts viewer.Options) error {
	ln, warning, err := viewer.Listen(ctx, o.Listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	if warning != "" {
		fmt.Fprintf(d.errOut, "git-snap: warning: %s\n", warning)
	}
	opts.Addr = ln.Addr().String()
	opts.SearchDir = search.DefaultDir(d.repo.Paths().CommonDir)
	srv, err := viewer.New(d.repo.Storage(), opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	stop := follow(ctx, srv, d.repo.Paths().CommonDir, d.repo.SessionRef(""))
	defer stop()
	addr := "http://" + ln.Addr().String() + path
	fmt.Fprintf(d.out, "git snap view: %s (Ctrl-C stops it)\n", addr)
	if o.Open {
		if err := openBrowser(ctx, addr); err != nil {
			fmt.Fprintf(d.errOut, "git-snap: warning: could not open a browser (%v); open %s\n", err, addr)
		}
	}
	return viewer.Serve(ctx, ln, srv)
}

// follow keeps srv's summaries current as the session refs (under
// prefix) or the remote ones move (Server.Follow), until stop is called:
// it returns once neither the watch nor Follow runs any more, so that
// the store the caller closes next is no longer read. Where no watch can
// be set up (no inotify, too many folders) the pages read what moved
// when asked.
func follow(ctx context.Context, srv *viewer.Server, commonDir, prefix string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var moved <-chan struct{}
	w, err := refwatch.Start(ctx, commonDir, strings.TrimSuffix(prefix, "/"), "refs/remotes")
	if err == nil {
		moved = w.Moved()
	}
	done := make(chan struct{})
	go func() {
		srv.Follow(ctx, moved)
		close(done)
	}()
	return func() {
		cancel()
		<-done
		if w != nil {
			_ = w.Close()
		}
	}
}

// openBrowser opens addr in the system's default browser.
func openBrowser(ctx context.Context, addr string) error {
	name, args := "xdg-open", []string{addr}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", addr}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
