package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/storage"
)

// HookOptions holds what a hook call knows besides its payload.
type HookOptions struct {
	// Dir is the directory the agent runs in. It is used for the code
	// state when the store has no work tree of its own (--store); ""
	// means the store's work tree.
	Dir string
	// Budget bounds how long the call keeps reading a long transcript in
	// steps; the next call continues from there. Zero means no bound
	// other than the context's.
	Budget time.Duration
	// Warn receives problems the call continued despite (a named
	// transcript that is missing, a file the agent rewrote). When nil,
	// they are discarded.
	Warn func(msg string)
}

// RecordHook records one hook call of agent a, as git snap hook does:
// the code state at the time of the call (read without scanning the work
// tree after a tool that cannot write files), the files the agent
// touched or changed, and then retention. If the code state cannot be
// read (no git, a broken index), the conversation is still recorded and
// the error is returned along with the entry.
func (r *Repository) RecordHook(ctx context.Context, a agent.Adapter, p agent.Payload, o HookOptions) (storage.Entry, bool, error) {
	cfg := r.Config
	in := capture.Ingest{Store: r.store, Adapter: a, Limits: cfg.SnapshotLimits(), MaxFileBytes: cfg.Limits.MaxFileBytes,
		MaxReadBytes: int64(cfg.Limits.MaxReadBytes), Budget: o.Budget, Warn: o.Warn}
	if t, ok := a.(agent.HookTimeouts); ok && in.Budget > 0 { // the agent may kill the call sooner
		in.Budget = min(in.Budget, time.Duration(t.HookTimeout(p.Event))*time.Second/2)
	}
	so, changed, codeErr := r.hookCode(ctx, o.Dir, p, a.ChangesFiles(p))
	if wt := r.Paths().WorkTree; wt != "" && changed != nil {
		in.WorkTree, in.Changed = wt, func(context.Context) ([]string, error) { return changed, nil }
	}
	entry, added, err := in.Run(ctx, p, so)
	if err == nil && added {
		_, err = r.store.ApplyRetention(ctx, p.SessionID, entry.Header.Seq, cfg.RetentionPolicy())
	}
	return entry, added, errors.Join(codeErr, err)
}

// hookCode returns the code state to record in a hook call's snapshot,
// and the files changed in the work tree. After a tool that cannot write
// files (changes is false), nothing is scanned: HEAD is read, and the
// dirty flag is copied from the session's newest snapshot if it was
// saved at the same commit.
func (r *Repository) hookCode(ctx context.Context, dir string, p agent.Payload, changes bool) (storage.SaveOptions, []string, error) {
	var so storage.SaveOptions
	if !changes {
		if !r.Config.RecordCode() {
			return so, nil, nil
		}
		head, err := r.store.Head()
		if err != nil || head.IsZero() {
			return so, nil, nil
		}
		so.Code = head.String()
		if tip, err := r.store.SessionTip(p.SessionID); err == nil && !tip.IsZero() {
			if e, err := r.store.Entry(ctx, tip); err == nil && e.Header.Code == so.Code {
				so.Dirty = e.Header.Dirty
			}
		}
		return so, nil, nil
	}
	code, err := r.CodeState(ctx, dir, r.Paths().WorkTree != "")
	if err != nil {
		return so, nil, fmt.Errorf("read the work tree's state: %w", err)
	}
	if r.Config.RecordCode() && !code.Commit.IsZero() {
		so.Code, so.Dirty = code.Commit.String(), code.Dirty
	}
	return so, code.Changed, nil
}

// CodeState reads the state of the code for a snapshot: the
// repository's work tree or, for a store separate from the code
// (--store), the work tree that contains dir. It returns the zero State
// when there is no work tree. If changed is set, it also lists the
// changed files.
func (r *Repository) CodeState(ctx context.Context, dir string, changed bool) (codestate.State, error) {
	return capture.CodeState(ctx, r.Paths(), dir, r.env, changed, codestate.Options{Watchman: r.watchman, UserConfigDir: r.userConfigDir})
}

// MarkCommit marks the sessions active in the work tree that contains
// dir with the commit just made there, as git's post-commit hook
// requests (see capture.PostCommit), and returns their names.
func (r *Repository) MarkCommit(ctx context.Context, dir string, now time.Time) ([]string, error) {
	code, err := r.CodeState(ctx, dir, false)
	if err != nil || code.Commit.IsZero() {
		return nil, err
	}
	pc := capture.PostCommit{Commit: code.Commit.String(), Dirty: code.Dirty, WorkTree: r.Paths().WorkTree, Now: now}
	return pc.Mark(ctx, r.store)
}
