package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
)

// gitEnv is what git's environment variables say, for the library, which
// reads none itself.
func (e *env) gitEnv() gitstore.GitEnv {
	return gitstore.GitEnv{
		GitDir:         e.getenv("GIT_DIR"),
		WorkTree:       e.getenv("GIT_WORK_TREE"),
		CommitterName:  e.getenv("GIT_COMMITTER_NAME"),
		CommitterEmail: e.getenv("GIT_COMMITTER_EMAIL"),
		Home:           e.getenv("HOME"),
		XDGConfigHome:  e.getenv("XDG_CONFIG_HOME"),
	}
}

// parseGitDate reads a time the way git reads $GIT_COMMITTER_DATE:
// "@unix", "unix +zone", "@unix +zone" or RFC 3339. It returns false
// when v is empty or unreadable.
func parseGitDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
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
