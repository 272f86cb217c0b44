package gitstore

import (
	"cmp"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// identity signs a commit or tag made at when. Who signs is found once
// per Store: finding it reads up to three config files, and a Store may
// commit many times.
func (s *Store) identity(when time.Time) object.Signature {
	s.signer.once.Do(func() {
		s.signer.sig = s.opts.Identity
		if s.signer.sig.Name == "" && s.signer.sig.Email == "" {
			s.signer.sig = DefaultIdentity(s.paths, s.opts.Env)
		}
	})
	sig := s.signer.sig
	sig.When = when
	return sig
}

// DefaultIdentity finds who snapshots are by, as git would for a commit:
// the committer named by env, then user.name/email of the repository, the
// user's, the XDG and the system git config (see GitConfig); "git-snap"
// when nothing says.
func DefaultIdentity(p Paths, env GitEnv) object.Signature {
	sig := object.Signature{Name: env.CommitterName, Email: env.CommitterEmail}
	if sig.Name == "" || sig.Email == "" {
		cfg := GitConfig(p, env, "user.name", "user.email")
		sig.Name = cmp.Or(sig.Name, cfg["user.name"])
		sig.Email = cmp.Or(sig.Email, cfg["user.email"])
	}
	sig.Name = cmp.Or(sig.Name, "git-snap")
	sig.Email = cmp.Or(sig.Email, "git-snap@localhost")
	return sig
}
