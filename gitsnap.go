// Package gitsnap is git-snap's public library API. Open gives a Go
// program the same store the command line works with, with the same
// settings, redaction, agent views, totals and limits. The zero Options
// match the command line's defaults, except that the library does not
// look for the user's settings file on its own (see
// Options.UserConfigDir).
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

// Options configure where Open looks and where it reports warnings. The
// zero value suits most programs.
type Options struct {
	// UserConfigDir is the user's configuration directory
	// ($XDG_CONFIG_HOME, or ~/.config), from which git-snap/config.yaml
	// is read. When it is "", no user settings are read. The command line
	// sets it from its environment; the library reads no environment
	// variables.
	UserConfigDir string
	// GitEnv holds the values of git's environment variables (GIT_DIR,
	// GIT_WORK_TREE, the committer). It is zero for a repository found
	// from dir.
	GitEnv gitstore.GitEnv
	// Warnf receives messages the user should see, such as settings the
	// team's file is not allowed to change, or a stale lock that was
	// removed. When nil, warnings are discarded.
	Warnf func(format string, args ...any)
	// Now returns the time of new snapshots; time.Now when nil.
	Now func() time.Time
	// Watchman is the socket of a watchman server, "" for none. With
	// one, a hook call after a tool that may write reads the work tree's
	// state from the files watchman saw change since the last call,
	// rather than from a git status that reads every file (see package
	// codestate). The command line fills it from its environment.
	Watchman string
}

// Repository gives access to a repository's sessions, opened with the
// repository's settings. It gives any Go program what the command line,
// the hook, the viewer and the MCP server use. It must be used by one
// goroutine at a time; goroutines that write concurrently each open
// their own Repository, and lose no data.
type Repository struct {
	store *gitstore.Store
	// Config holds the merged settings: the user's, the team's committed
	// .git-snap.yaml and the clone's .git/snap/config.yaml.
	Config config.Config
	env    gitstore.GitEnv
	// userConfigDir is the directory that holds the user's copy of the
	// price list.
	userConfigDir string
	// watchman is Options.Watchman.
	watchman string
}

// Open opens the store of the repository that contains dir, as the
// command line does: settings are layered, secrets are redacted by the
// built-in rules and the configured ones, every snapshot's totals are
// computed the way its agent counts them, and every read is bounded by
// the configured limits.
func Open(ctx context.Context, dir string, o Options) (*Repository, error) {
	paths, err := gitstore.Discover(dir, o.GitEnv)
	if err != nil {
		return nil, err
	}
	return OpenPaths(ctx, paths, o)
}

// OpenPaths is like Open, for a repository that has already been found.
// It is the only place where a store is opened with its settings.
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
		// No object within the limits is larger, so no read needs more.
		MaxObjectBytes: int64(max(cfg.Limits.MaxDocumentBytes, cfg.Limits.MaxValueBytes)),
	})
	if err != nil {
		return nil, err
	}
	return &Repository{store: s, Config: cfg, env: o.GitEnv, userConfigDir: o.UserConfigDir, watchman: o.Watchman}, nil
}

// Close releases the repository's open files.
func (r *Repository) Close() error { return r.store.Close() }

// Paths returns the locations of the repository's directories.
func (r *Repository) Paths() gitstore.Paths { return r.store.Paths() }

// Storage returns the repository's store as a storage.Storage, for
// readers that read a session piece by piece (a viewer, a search index,
// a report) and for writers that accept any store.
func (r *Repository) Storage() storage.Storage { return r.store }

// Prices returns the prices used to estimate costs, as the command line
// loads them: the user's copy of LiteLLM's price list (from git snap
// prices update) or the embedded one, overridden by the prices: setting.
func (r *Repository) Prices() (*prices.Prices, error) {
	overrides := map[string]prices.Price{}
	for model, p := range r.Config.Prices {
		overrides[model] = prices.Price{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Output: p.Output}
	}
	return prices.Load(r.userConfigDir, overrides)
}

// Usage adds up the tokens and cost of every session, local and fetched,
// as git snap usage does. o.Prices defaults to the repository's Prices.
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

// Limits returns the settings' bounds on a document, in the form that
// snapshot.Parse and the agents' readers expect.
func (r *Repository) Limits() snapshot.Limits { return r.Config.SnapshotLimits() }

// Retention returns the settings' retention policy, which a hook call
// applies after each snapshot and prune applies on demand.
func (r *Repository) Retention() gitstore.RetentionPolicy { return r.Config.RetentionPolicy() }
