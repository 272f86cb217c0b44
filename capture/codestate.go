package capture

import (
	"context"

	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/gitstore"
)

// CodeState reads the state of the code a snapshot of s is taken at:
// s's work tree, or, for a store apart from the code (--store), the work
// tree dir is in, found with env; the zero State where there is none.
// changed lists the changed files too.
func CodeState(ctx context.Context, s *gitstore.Store, dir string, env gitstore.GitEnv, changed bool) (codestate.State, error) {
	root := s.Paths().WorkTree
	if root == "" {
		p, err := gitstore.Discover(dir, env)
		if err != nil || p.WorkTree == "" {
			return codestate.State{}, nil
		}
		root = p.WorkTree
	}
	return codestate.Read(ctx, codestate.Options{Dir: root, Changed: changed})
}
