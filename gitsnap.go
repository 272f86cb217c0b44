// Package gitsnap is git-snap's library front door: Open gives a Go
// program the store the command line works with, with the same
// settings, redaction, agent views, totals and limits. Zero Options are
// the command line's defaults but for the user's settings file, which a
// library does not look for on its own (see Options.UserConfigDir).
//
//	repo, err := gitsnap.Open(ctx, ".", gitsnap.Options{})
//	...
//	defer repo.Close()
//	e, err := repo.Save(ctx, doc, storage.SaveOptions{Session: "fix-login"})
package gitsnap

import (
	"context"
	"time"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/usage"
)

// Options say where to look and whom to tell; the zero value is right
// for most programs.
type Options struct {
	// UserConfigDir is the user's configuration directory
	// ($XDG_CONFIG_HOME, or ~/.config), where git-snap/config.yaml is
	// read from; "" reads no user settings. The command line fills it
	// from its environment; the library reads none.
	UserConfigDir string
	// GitEnv is what git's environment says (GIT_DIR, GIT_WORK_TREE,
	// who commits); zero for a repository found from dir.
	GitEnv gitstore.GitEnv
	// Warnf receives what a user should see: settings the team's file
	// may not change, a stale lock removed. Nil drops them.
	Warnf func(format string, args ...any)
	// Now gives the time of new snapshots; time.Now when nil.
	Now func() time.Time
	// Watchman is the socket of a watchman server, "" for none. With
	// one, a hook call after a tool that may write reads the work tree's
	// state from the files watchman saw change since the last call,
	// rather than from a git status that reads every file (see package
	// codestate). The command line fills it from its environment.
	Watchman string
}

// Repository is a repository's sessions, opened with its settings: what
// the command line, the hook, the viewer and the MCP server do, for any
// Go program. It is for one goroutine at a time; goroutines that write at
// once each open their own, and lose nothing.
type Repository struct {
	store *gitstore.Store
	// Config is the merged settings: the user's, the team's committed
	// .git-snap.yaml and the clone's .git/snap/config.yaml.
	Config config.Config
	env    gitstore.GitEnv
	// userConfigDir is where the user's copy of the price list is.
	userConfigDir string
	// watchman is Options.Watchman.
	watchman string
}

// Open opens the store of the repository dir is in, as the command line
// does: its settings layered, secrets redacted by the built-in rules and
// the settings' own, every snapshot counted as its agent reads it, every
// read bounded by the settings' limits.
func Open(ctx context.Context, dir string, o Options) (*Repository, error) {
	paths, err := gitstore.Discover(dir, o.GitEnv)
	if err != nil {
		return nil, err
	}
	return OpenPaths(ctx, paths, o)
}

// OpenPaths is Open for a repository already found. It is the one place
// a store is opened with its settings.
func OpenPaths(ctx context.Context, paths gitstore.Paths, o Options) (*Repository, error) {
	cfg, err := config.Load(config.SourcesFor(o.UserConfigDir, paths.WorkTree, paths.CommonDir))
	if err != nil {
		return nil, err
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
		return nil, &config.Error{File: "redact", Err: err}
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
		return nil, err
	}
	return &Repository{store: s, Config: cfg, env: o.GitEnv, userConfigDir: o.UserConfigDir, watchman: o.Watchman}, nil
}

// Close releases the repository's open files.
func (r *Repository) Close() error { return r.store.Close() }

// Paths says where the repository is.
func (r *Repository) Paths() gitstore.Paths { return r.store.Paths() }

// Storage is the repository's store as its roles, for readers that take
// a session piece by piece (a viewer, a search index, a report) and
// writers that take any store.
func (r *Repository) Storage() storage.Storage { return r.store }

// Prices are the prices costs are estimated with, as the command line
// takes them: the user's copy of LiteLLM's price list (git snap prices
// update) or the embedded one, with the settings' prices: over it.
func (r *Repository) Prices() (*prices.Prices, error) {
	overrides := map[string]prices.Price{}
	for model, p := range r.Config.Prices {
		overrides[model] = prices.Price{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Output: p.Output}
	}
	return prices.Load(r.userConfigDir, overrides)
}

// Usage adds up the tokens and cost of every session, local and fetched,
// as git snap usage does; o.Prices defaults to the repository's Prices.
func (r *Repository) Usage(ctx context.Context, o usage.Options) (usage.Report, error) {
	if o.Prices == nil {
		p, err := r.Prices()
		if err != nil {
			return usage.Report{}, err
		}
		o.Prices = p
	}
	return usage.Compute(ctx, r.store, o)
}

// Limits are the settings' bounds on a document as snapshot.Parse and
// the agents' readers take them.
func (r *Repository) Limits() snapshot.Limits { return r.Config.SnapshotLimits() }

// Retention is the settings' retention policy, which a hook call applies
// after each snapshot and prune applies on demand.
func (r *Repository) Retention() gitstore.RetentionPolicy { return r.Config.RetentionPolicy() }
