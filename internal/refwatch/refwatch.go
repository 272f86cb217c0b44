// Package refwatch tells a long-running reader of a git repository that
// refs under some of its folders may have moved, as the move happens, so
// that it reads them again before anyone asks it for them.
//
// It is a hint, never the truth: a reader still reads the refs it
// serves, and a watch that cannot start, or loses events, only costs the
// first reader after a move the read it would have made anyway. A move
// is signalled for every file written, renamed or removed under the
// watched folders (lock files aside) and for the repository's
// packed-refs, which git pack-refs and git gc rewrite.
//
// Where the system tells of changes without a file open for each
// watched file (inotify, Windows), the watch is told; where it would
// need one (kqueue: macOS and the BSDs open every file of a folder they
// watch, so 10k sessions would pass the limit on open files), or where
// telling cannot start, it looks twice a second at what the folders'
// stamps say.
package refwatch

import (
	"context"
	"path/filepath"
	"strings"
	"time"
)

// Watch is a running watch of some refs of one repository.
type Watch struct {
	moved chan struct{}
	done  chan struct{} // closed when the watch has ended
	stop  func() error  // ends the watch
}

// pollEvery is how often a watch that looks at stamps looks.
const pollEvery = 500 * time.Millisecond

// Start watches the refs under trees, each a folder relative to the
// repository's common dir (its .git), such as "refs/snap", until ctx ends
// or Close is called. A folder that does not exist yet is watched from
// when it is made.
func Start(ctx context.Context, commonDir string, trees ...string) (*Watch, error) {
	if looksOnly {
		return startPolling(ctx, commonDir, pollEvery, trees)
	}
	w, err := startNotify(ctx, commonDir, trees)
	if err != nil {
		// No inotify, or its limit on watches reached: look instead. A
		// common dir that is not there fails here too, and says so.
		return startPolling(ctx, commonDir, pollEvery, trees)
	}
	return w, nil
}

func newWatch() *Watch {
	return &Watch{moved: make(chan struct{}, 1), done: make(chan struct{})}
}

// Moved receives after refs moved: one value for however many moves
// came since it was last received.
func (w *Watch) Moved() <-chan struct{} { return w.moved }

// Close stops the watch.
func (w *Watch) Close() error {
	err := w.stop()
	<-w.done
	return err
}

func (w *Watch) signal() {
	select {
	case w.moved <- struct{}{}:
	default: // one is waiting already
	}
}

// absTrees are trees made absolute under common.
func absTrees(common string, trees []string) []string {
	var out []string
	for _, t := range trees {
		out = append(out, filepath.Join(common, filepath.FromSlash(t)))
	}
	return out
}

// under tells whether path is inside dir, not dir itself.
func under(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
