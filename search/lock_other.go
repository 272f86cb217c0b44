//go:build !unix

package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// lock takes the index's write lock by creating a file exclusively. A
// lock file older than staleLock is assumed to be left by a process that
// died, and is removed.
func lock(ctx context.Context, path string) (unlock func(), err error) {
	path += ".held"
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock the search index: %w", err)
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

const staleLock = 10 * time.Minute
