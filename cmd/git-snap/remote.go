package main

import (
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

// remoteFlags are shared by push, fetch and pull.
func remoteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "transport", Usage: "`git` (the binary, the default when installed) or go-git"},
	}
}

// parseRemote reads [REMOTE] [SESSION…] as git push reads [remote]
// [refspec…], for push, fetch and pull; progress is for the run to set.
func (e *env) parseRemote(c *cli.Context) (gitstore.RemoteOptions, error) {
	o := gitstore.RemoteOptions{Remote: c.Args().First(), Transport: c.String("transport")}
	if o.Transport == "" {
		o.Transport = e.getenv("GIT_SNAP_TRANSPORT")
	}
	if c.NArg() > 1 {
		o.Sessions = c.Args().Tail()
	}
	switch o.Transport {
	case "", gitstore.TransportGit, gitstore.TransportGoGit:
	default:
		return o, usagef("--transport (or $GIT_SNAP_TRANSPORT) takes git or go-git, not %q", o.Transport)
	}
	return o, nil
}
