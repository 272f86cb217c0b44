package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
			s.signer.sig = DefaultIdentity(s.paths)
		}
	})
	sig := s.signer.sig
	sig.When = when
	return sig
}

// DefaultIdentity finds who snapshots are by, as git would for a commit:
// $GIT_COMMITTER_NAME/EMAIL, then user.name/email of the repository, the
// user's and the XDG git config; "git-snap" when nothing says.
func DefaultIdentity(p Paths) object.Signature {
	sig := object.Signature{Name: os.Getenv("GIT_COMMITTER_NAME"), Email: os.Getenv("GIT_COMMITTER_EMAIL")}
	files := []string{filepath.Join(p.CommonDir, "config")}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		if home, err := os.UserHomeDir(); err == nil {
			xdg = filepath.Join(home, ".config")
		}
	}
	files = append(files, filepath.Join(xdg, "git", "config"))
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

// TimeFromEnv reads a time the way git reads $GIT_COMMITTER_DATE: "@unix",
// "unix +zone", "@unix +zone" or RFC 3339. It returns false when unset or
// unreadable, so that tests and reproducible runs can pin the time.
func TimeFromEnv(name string) (time.Time, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	secs, zone, _ := strings.Cut(strings.TrimPrefix(v, "@"), " ")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	t := time.Unix(n, 0).UTC()
	if z, err := time.Parse("-0700", zone); err == nil {
		t = t.In(z.Location())
	}
	return t, true
}
