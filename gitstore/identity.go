package gitstore

import (
	"cmp"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
)

// Signature is who signs snapshots and checkpoints: a name and an email,
// as in git's user.name and user.email. When is the time a commit or
// tag is made at, set for each.
type Signature struct {
	Name, Email string
	When        time.Time
}

// identity signs a commit or tag made at when, as the value of its
// author, committer or tagger header. Who signs is found once per
// Store: finding it reads up to three config files, and a Store may
// commit many times.
func (s *Store) identity(when time.Time) []byte {
	s.signer.once.Do(func() {
		s.signer.sig = s.opts.Identity
		if s.signer.sig.Name == "" && s.signer.sig.Email == "" {
			s.signer.sig = DefaultIdentity(s.paths, s.opts.Env)
		}
	})
	return gitobj.Signature(s.signer.sig.Name, s.signer.sig.Email, when)
}

// DefaultIdentity finds who snapshots are by, as git would for a commit:
// the committer named by env, then user.name/email of the repository, the
// user's, the XDG and the system git config (see GitConfig); "git-snap"
// when nothing says.
func DefaultIdentity(p Paths, env GitEnv) Signature {
	sig := Signature{Name: env.CommitterName, Email: env.CommitterEmail}
	if sig.Name == "" || sig.Email == "" {
		cfg := GitConfig(p, env, "user.name", "user.email")
		sig.Name = cmp.Or(sig.Name, cfg["user.name"])
		sig.Email = cmp.Or(sig.Email, cfg["user.email"])
	}
	sig.Name = cmp.Or(sig.Name, "git-snap")
	sig.Email = cmp.Or(sig.Email, "git-snap@localhost")
	return sig
}
