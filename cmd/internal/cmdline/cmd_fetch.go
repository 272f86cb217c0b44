package cmdline

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

func cmdFetch(e *env) *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "bring a remote's sessions into refs/remotes/<remote>/snap/",
		ArgsUsage: "[REMOTE] [SESSION…]",
		Description: `Fetches the remote's sessions and checkpoints into remote-tracking refs; local
sessions do not change (pull does that). Browse them as remotes/<remote>/snap/<session>.

Example:
   git snap fetch origin && git log origin/snap/fix-login`,
		Flags:  remoteFlags(),
		Action: action(e, shape{max: -1}, e.parseRemote, runFetch),
	}
}

// runFetch fetches into remote-tracking refs and lists their tips.
func runFetch(ctx context.Context, d *deps, o gitstore.RemoteOptions) error {
	if err := d.repo.Fetch(ctx, o); err != nil {
		return err
	}
	tips, err := d.repo.RemoteTips(or(o.Remote, "origin"))
	if err != nil {
		return err
	}
	names := make([]string, 0, len(tips))
	for n := range tips {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(d.out, "%s\t%s\n", tips[n].String()[:12], n)
	}
	for _, g := range gitstore.CaseGroups(names) {
		fmt.Fprintf(d.errOut, "git-snap: note: sessions %s differ only in case, which macOS and Windows take as the same name: pull keeps both here; rename one on the clone that made them, with %s\n", strings.Join(g, " and "), gitstore.RenameHint(or(o.Remote, "origin"), strings.TrimSuffix(d.repo.SessionRef(g[0]), g[0]), g[0], g[0]+"-2"))
	}
	return nil
}
