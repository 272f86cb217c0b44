package proc

import (
	"os"
	"path/filepath"
)

// Watchman is the socket of the user's watchman server, as its own
// client finds it: $WATCHMAN_SOCK, else the state directory of the
// user's server in the places watchman's builds put it (Debian's under
// $TMPDIR or /tmp; Homebrew's and upstream's under a var/run); "" when
// none is there. A socket no server listens on is found as well: the
// call asking it then scans as without one.
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
