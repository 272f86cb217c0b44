//go:build unix

package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/git-snap/git-snap/internal/safefile"
)

// lock takes the index's write lock, waiting for another process's
// update to finish. The kernel releases the lock when the process exits,
// so a killed search never leaves the index locked.
func lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := safefile.OpenAppend(path, 0o666)
	if errors.Is(err, safefile.ErrRefused) {
		// A FIFO or symbolic link planted as the lock file would block,
		// or lock another file. The lock file belongs to the index, so
		// replace it.
		if err = os.Remove(path); err == nil {
			f, err = safefile.OpenAppend(path, 0o666)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock the search index: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			break
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the search index: %w", err)
	}
	return func() { f.Close() }, nil
}
