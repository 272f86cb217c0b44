package capture

import (
	"context"

	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/gitstore"
)

// CodeState reads the state of the code a snapshot is taken at: the
// store's work tree (workTree), or, for a store apart from the code
// (--store, workTree ""), the work tree dir is in, found with env; the
// zero State where there is none. changed lists the changed files too.
func CodeState(ctx context.Context, workTree, dir string, env gitstore.GitEnv, changed bool) (codestate.State, error) {
	root := workTree
	if root == "" {
		p, err := gitstore.Discover(dir, env)
		if err != nil || p.WorkTree == "" {
			return codestate.State{}, nil
		}
		root = p.WorkTree
	}
	return codestate.Read(ctx, codestate.Options{Dir: root, Changed: changed})
}
