package cmdline

import (
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

// remoteFlags are shared by push, fetch and pull: none yet. Sharing runs
// the git binary, with the user's credentials and ssh config.
func remoteFlags() []cli.Flag { return progressFlags() }

// parseRemote reads [REMOTE] [SESSION…] as git push reads [remote]
// [refspec…], for push, fetch and pull. git's progress is shown on
// stderr when stderr is a terminal, as git shows it, or when --progress
// asks.
func (e *env) parseRemote(c *cli.Context) (gitstore.RemoteOptions, error) {
	o := gitstore.RemoteOptions{Remote: c.Args().First()}
	o.Progress = e.progressTo(c)
	o.ForceWithLease = c.Bool("force-with-lease") // push's alone
	o.Delete = c.Bool("delete")
	if c.NArg() > 1 {
		o.Sessions = c.Args().Tail()
	}
	return o, nil
}
