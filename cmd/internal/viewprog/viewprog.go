// Package viewprog is git snap view as git-snap-view runs it: the web
// viewer (package viewer, with its Markdown engine, templates and HTTP
// server, none of which git-snap links; docs/design.md §7) served on
// the address asked for until the call ends.
package viewprog

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/internal/refwatch"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/viewer"
)

// Serve serves the viewer of r.Store until ctx ends (programs.Set's
// View): it prints the address (r.Path's page), opens it in a browser
// when asked, and warns on r.Err when the address is reachable from
// other machines.
func Serve(ctx context.Context, r programs.ViewRequest) error {
	ln, warning, err := viewer.Listen(ctx, viewer.ListenOptions{Port: r.Listen.Port, PortSet: r.Listen.PortSet, Listen: r.Listen.Listen})
	if err != nil {
		return err
	}
	defer ln.Close()
	if warning != "" {
		fmt.Fprintf(r.Err, "git-snap: warning: %s\n", warning)
	}
	srv, err := viewer.New(r.Store, viewer.Options{Addr: ln.Addr().String(), Prices: r.Prices, OpenSearchStore: r.OpenSearchStore,
		SearchDir: search.DefaultDir(r.Store.Paths().CommonDir)})
	if err != nil {
		return err
	}
	defer srv.Close()
	stop := follow(ctx, srv, r.Store.Paths().CommonDir, r.Store.SessionRef(""))
	defer stop()
	addr := "http://" + ln.Addr().String() + r.Path
	fmt.Fprintf(r.Out, "git snap view: %s (Ctrl-C stops it)\n", addr)
	if r.Open {
		if err := openBrowser(ctx, addr); err != nil {
			fmt.Fprintf(r.Err, "git-snap: warning: could not open a browser (%v); open %s\n", err, addr)
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
