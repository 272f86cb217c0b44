package refs

import (
	"os"
	"time"
)

// rename moves from over to, trying again for about a second while busy
// says another process holds to open: Windows refuses to replace such a
// file, and a reader holds a ref for a moment (git for Windows retries
// too). Elsewhere busy is never true.
func rename(from, to string) error { return renameRetrying(os.Rename, busy, from, to) }

func renameRetrying(mv func(from, to string) error, busy func(error) bool, from, to string) error {
	err := mv(from, to)
	for wait := time.Millisecond; err != nil && busy(err) && wait < time.Second; wait *= 2 {
		time.Sleep(wait)
		err = mv(from, to)
	}
	return err
}
