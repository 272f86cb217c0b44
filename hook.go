package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/hook"
	"github.com/git-snap/git-snap/storage"
)

// HookOptions are what a hook call knows besides its payload.
type HookOptions = hook.Options

// RecordHook records one hook call of an agent as the command line's
// git snap hook does (hook.Record): the code state it was made at (read
// without a scan of the work tree after a tool that cannot write), the
// files the agent touched or changed, then retention. Without a code
// state (no git, a broken index) the conversation is still recorded and
// the failure returned with the entry.
func (r *Repository) RecordHook(ctx context.Context, a agent.Adapter, p agent.Payload, o HookOptions) (storage.Entry, bool, error) {
	return hook.Record(ctx, r.Store, r.Config, r.env, a, p, o)
}

// CodeState reads the state of the code a snapshot of s is taken at:
// s's work tree, or, for a store apart from the code (--store), the work
// tree dir is in, found with env; the zero State where there is none.
// changed lists the changed files too.
func CodeState(ctx context.Context, s *gitstore.Store, dir string, env gitstore.GitEnv, changed bool) (codestate.State, error) {
	return capture.CodeState(ctx, s, dir, env, changed)
}
