package capture

import (
	"context"

	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/gitstore"
)

// CodeState reads the state of the code a snapshot is taken at: the
// store's work tree (paths.WorkTree), or, for a store separate from the
// code (--store, no work tree), the work tree dir is in, found with env;
// the zero State where there is none. changed lists the changed files
// too. o says where watchman is, for the store's own work tree: the
// state is kept in its git directory between calls, which a separate store
// from the code does not write into.
func CodeState(ctx context.Context, paths gitstore.Paths, dir string, env gitstore.GitEnv, changed bool, o codestate.Options) (codestate.State, error) {
	o.Changed = changed
	if paths.WorkTree != "" {
		o.Dir, o.GitDir, o.CommonDir = paths.WorkTree, paths.GitDir, paths.CommonDir
		return codestate.Read(ctx, o)
	}
	p, err := gitstore.Discover(dir, env)
	if err != nil || p.WorkTree == "" {
		return codestate.State{}, nil
	}
	return codestate.Read(ctx, codestate.Options{Dir: p.WorkTree, Changed: changed, Git: o.Git})
}
