package proc

import (
	"os"
	"path/filepath"
)

// Watchman returns the socket of the user's watchman server, found as
// watchman's own client finds it: $WATCHMAN_SOCK, else the user's state
// directory in the places watchman's builds put it (Debian's under
// $TMPDIR or /tmp; Homebrew's and upstream's under a var/run). It
// returns "" when there is none. It may also return a socket that no
// server listens on; a call to it then fails and the caller scans the
// work tree as it would without watchman.
func Watchman(getenv func(string) string) string {
	if s := getenv("WATCHMAN_SOCK"); s != "" {
		return s
	}
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	if user == "" {
		return ""
	}
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	for _, dir := range []string{tmp, "/usr/local/var/run/watchman", "/opt/homebrew/var/run/watchman", "/var/run/watchman", "/run/watchman"} {
		sock := filepath.Join(dir, user+"-state", "sock")
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return sock
		}
	}
	return ""
}
