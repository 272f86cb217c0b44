// Package gitsnap is git-snap's library front door: Open gives a Go
// program the store the command line works with, with the same
// settings, redaction, agent views, totals and limits. Zero Options are
// the command line's defaults but for the user's settings file, which a
// library does not look for on its own (see Options.UserConfigDir).
//
//	repo, err := gitsnap.Open(ctx, ".", gitsnap.Options{})
//	...
//	defer repo.Close()
//	e, err := repo.Save(ctx, doc, gitstore.SaveOptions{Session: "fix-login"})
package gitsnap

import (
	"context"
	"time"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
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
}

// Repository is a repository's store opened with its settings: every
// method of gitstore.Store, and the Config it was opened with.
type Repository struct {
	*gitstore.Store
	// Config is the merged settings: the user's, the team's committed
	// .git-snap.yaml and the clone's .git/snap/config.yaml.
	Config config.Config
	env    gitstore.GitEnv
	// userConfigDir is where the user's copy of the price list is.
	userConfigDir string
}

// Open opens the store of the repository dir is in, as the command line
// does: its settings layered, secrets redacted by the built-in rules and
// the settings' own, every snapshot counted, every read bounded by the
// settings' limits.
func Open(ctx context.Context, dir string, o Options) (*Repository, error) {
	paths, err := gitstore.Discover(dir, o.GitEnv)
	if err != nil {
		return nil, err
	}
	return OpenPaths(ctx, paths, o)
}

// OpenPaths is Open for a repository already found.
func OpenPaths(ctx context.Context, paths gitstore.Paths, o Options) (*Repository, error) {
	s, cfg, err := config.Open(ctx, paths, config.OpenOptions{UserConfigDir: o.UserConfigDir, GitEnv: o.GitEnv, Warnf: o.Warnf, Now: o.Now})
	if err != nil {
		return nil, err
	}
	return &Repository{Store: s, Config: cfg, env: o.GitEnv, userConfigDir: o.UserConfigDir}, nil
}

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
	return usage.Compute(ctx, r.Store, o)
}

// Limits are the settings' bounds on a document as snapshot.Parse and
// the agents' readers take them.
func (r *Repository) Limits() snapshot.Limits { return r.Config.SnapshotLimits() }

// Retention is the settings' retention policy, which a hook call applies
// after each snapshot and prune applies on demand.
func (r *Repository) Retention() gitstore.RetentionPolicy { return r.Config.RetentionPolicy() }

// Wrap makes a Repository of a store already open with cfg, for a
// program that opened it itself (the command line opens once and hands
// the store to each command); env is what git's environment says.
func Wrap(s *gitstore.Store, cfg config.Config, env gitstore.GitEnv) *Repository {
	return &Repository{Store: s, Config: cfg, env: env}
}
