package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/config"
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
// user's and the XDG git config; "git-snap" when nothing says.
func DefaultIdentity(p Paths, env GitEnv) object.Signature {
	sig := object.Signature{Name: env.CommitterName, Email: env.CommitterEmail}
	files := []string{filepath.Join(p.CommonDir, "config")}
	xdg := env.XDGConfigHome
	if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".gitconfig"))
		if xdg == "" {
			xdg = filepath.Join(env.Home, ".config")
		}
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	for _, f := range files {
		if sig.Name != "" && sig.Email != "" {
			break
		}
		name, email := userFromConfig(f)
		if sig.Name == "" {
			sig.Name = name
		}
		if sig.Email == "" {
			sig.Email = email
		}
	}
	if sig.Name == "" {
		sig.Name = "git-snap"
	}
	if sig.Email == "" {
		sig.Email = "git-snap@localhost"
	}
	return sig
}

func userFromConfig(path string) (name, email string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	cfg := config.New()
	if config.NewDecoder(bytes.NewReader(b)).Decode(cfg) != nil {
		return "", ""
	}
	user := cfg.Section("user")
	return user.Option("name"), user.Option("email")
}
