package main

import (
	"fmt"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
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
		Flags: remoteFlags(),
		Action: e.storeAction(0, -1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			o, err := e.remoteOptions(c)
			if err != nil {
				return err
			}
			if err := s.Fetch(c.Context, o); err != nil {
				return err
			}
			tips, err := s.RemoteTips(or(o.Remote, "origin"))
			if err != nil {
				return err
			}
			names := make([]string, 0, len(tips))
			for n := range tips {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(e.stdout, "%s\t%s\n", tips[n].String()[:12], n)
			}
			return nil
		}),
	}
}
