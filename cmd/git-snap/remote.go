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

// remoteOptions reads [REMOTE] [SESSION…] as git push reads [remote] [refspec…].
func (e *env) remoteOptions(c *cli.Context) (gitstore.RemoteOptions, error) {
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
	if e.terminal {
		o.Progress = e.stderr
	}
	return o, nil
}
