package config

import (
	"context"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
)

// OpenOptions say where the settings are and whom to tell (see
// gitsnap.Options, which the library's users fill).
type OpenOptions struct {
	// UserConfigDir is the user's configuration directory, where
	// git-snap/config.yaml is read from; "" reads no user settings.
	UserConfigDir string
	// GitEnv is what git's environment says.
	GitEnv gitstore.GitEnv
	// Warnf receives what a user should see: settings the team's file
	// may not change, a stale lock removed. Nil drops them.
	Warnf func(format string, args ...any)
	// Now gives the time of new snapshots; time.Now when nil.
	Now func() time.Time
}

// Open opens the store of the repository at paths with its settings
// layered (Load): secrets redacted by the built-in rules and the
// settings' own, every read bounded by the settings' limits. It is
// gitsnap.OpenPaths, and what a hook call opens.
func Open(ctx context.Context, paths gitstore.Paths, o OpenOptions) (*gitstore.Store, Config, error) {
	cfg, err := Load(SourcesFor(o.UserConfigDir, paths.WorkTree, paths.CommonDir))
	if err != nil {
		return nil, Config{}, err
	}
	warnf := o.Warnf
	if warnf == nil {
		warnf = func(string, ...any) {}
	}
	for _, w := range cfg.Warnings {
		warnf("%s", w)
	}
	redactor, err := redact.New(cfg.Redact)
	if err != nil {
		return nil, Config{}, &Error{File: "redact", Err: err}
	}
	s, err := gitstore.OpenPaths(ctx, paths, gitstore.Options{
		RefPrefix:         cfg.Refs.Prefix,
		CheckpointsInTags: cfg.Refs.CheckpointsInTags,
		Warnf:             warnf,
		Now:               o.Now,
		Redactor:          redactor,
		Counter:           session.Counter{},
		View:              session.View,
		Env:               o.GitEnv,
		// Nothing within the limits is larger; no read may cost more.
		MaxObjectBytes: int64(max(cfg.Limits.MaxDocumentBytes, cfg.Limits.MaxValueBytes)),
	})
	if err != nil {
		return nil, Config{}, err
	}
	return s, cfg, nil
}

// SnapshotLimits are the settings' bounds on a document as
// snapshot.Parse and the agents' readers take them.
func (c Config) SnapshotLimits() snapshot.Limits {
	l := c.Limits
	return snapshot.Limits{MaxBytes: l.MaxDocumentBytes, MaxDepth: l.MaxDepth, MaxValueBytes: l.MaxValueBytes}
}

// RetentionPolicy is the settings' retention policy, which a hook call
// applies after each snapshot and prune applies on demand.
func (c Config) RetentionPolicy() gitstore.RetentionPolicy {
	return gitstore.RetentionPolicy{MaxPerSession: c.Retention.MaxPerSession, KeepFirst: c.Retention.KeepFirst}
}
