package hook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// Options are what a hook call knows besides its payload.
type Options struct {
	// Dir is where the agent runs, for the code state when the store
	// has no work tree of its own (--store); "" is the store's.
	Dir string
	// Budget bounds how long the call keeps reading a long transcript in
	// steps; the next call goes on. Zero: no bound but the context's.
	Budget time.Duration
	// Warn is told what the call went on without (a transcript named
	// that is missing, a file the agent rewrote); nil drops it.
	Warn func(msg string)
}

// Record records one hook call of agent a into s, opened with cfg (and
// git's environment env), as git snap hook does: the code state it was
// made at (read without a scan of the work tree after a tool that cannot
// write), the files the agent touched or changed, then retention.
// Without a code state (no git, a broken index) the conversation is
// still recorded and the failure returned with the entry.
func Record(ctx context.Context, s *gitstore.Store, cfg config.Config, env gitstore.GitEnv, a agent.Adapter, p agent.Payload, o Options) (storage.Entry, bool, error) {
	in := capture.Ingest{Store: s, Adapter: a, Limits: cfg.SnapshotLimits(), MaxFileBytes: cfg.Limits.MaxFileBytes,
		MaxReadBytes: int64(cfg.Limits.MaxReadBytes), Budget: o.Budget, Warn: o.Warn}
	if t, ok := a.(agent.HookTimeouts); ok && in.Budget > 0 { // the agent kills a call sooner
		in.Budget = min(in.Budget, time.Duration(t.HookTimeout(p.Event))*time.Second/2)
	}
	so, changed, codeErr := code(ctx, s, cfg, env, o.Dir, p, a.ChangesFiles(p))
	if wt := s.Paths().WorkTree; wt != "" && changed != nil {
		in.WorkTree, in.Changed = wt, func(context.Context) ([]string, error) { return changed, nil }
	}
	entry, added, err := in.Run(ctx, p, so)
	if err == nil && added {
		_, err = s.ApplyRetention(ctx, p.SessionID, entry.Header.Seq, cfg.RetentionPolicy())
	}
	return entry, added, errors.Join(codeErr, err)
}

// code is the code state a hook call's snapshot names, and the files
// changed in the work tree. After a tool that cannot write (changes
// false) nothing is scanned: HEAD is read, and the dirty flag carried
// from the session's last snapshot at the same commit.
func code(ctx context.Context, s *gitstore.Store, cfg config.Config, env gitstore.GitEnv, dir string, p agent.Payload, changes bool) (storage.SaveOptions, []string, error) {
	var so storage.SaveOptions
	if !changes {
		if !cfg.RecordCode() {
			return so, nil, nil
		}
		head, err := s.Head()
		if err != nil || head.IsZero() {
			return so, nil, nil
		}
		so.Code = head.String()
		if tip, err := s.SessionTip(p.SessionID); err == nil && !tip.IsZero() {
			if e, err := s.Entry(ctx, tip); err == nil && e.Header.Code == so.Code {
				so.Dirty = e.Header.Dirty
			}
		}
		return so, nil, nil
	}
	code, err := capture.CodeState(ctx, s, dir, env, s.Paths().WorkTree != "")
	if err != nil {
		return so, nil, fmt.Errorf("read the work tree's state: %w", err)
	}
	if cfg.RecordCode() && !code.Commit.IsZero() {
		so.Code, so.Dirty = code.Commit.String(), code.Dirty
	}
	return so, code.Changed, nil
}
