// Package refwatch notifies a long-running reader of a git repository,
// as it happens, that refs under some of its directories may have moved,
// so that the reader can reread them before anyone asks for them.
//
// A notification is only a hint. A reader still reads the refs it
// serves, so a watch that cannot start, or that loses events, only costs
// the first reader after a move the read it would have made anyway. A
// move is signalled for every file written, renamed or removed under the
// watched directories (except lock files) and for the repository's
// packed-refs, which git pack-refs and git gc rewrite.
//
// Where the system reports changes without a file open for each watched
// file (inotify, Windows), the watch uses those notifications. Where it
// would need one (kqueue: macOS and the BSDs open every file of a
// directory they watch, so 10k sessions would exceed the limit on open
// files), or where notifications cannot start, the watch polls the
// directories' stats twice a second.
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

// pollEvery is how often a polling watch scans.
const pollEvery = 500 * time.Millisecond

// Start watches the refs under trees, each a directory relative to the
// repository's common dir (its .git), such as "refs/snap", until ctx is
// done or Close is called. A directory that does not exist yet is
// watched from when it is created.
func Start(ctx context.Context, commonDir string, trees ...string) (*Watch, error) {
	if pollOnly {
		return startPolling(ctx, commonDir, pollEvery, trees)
	}
	w, err := startNotify(ctx, commonDir, trees)
	if err != nil {
		// No inotify, or its limit on watches was reached, so poll
		// instead. A missing common dir fails here too, with an error
		// that says so.
		return startPolling(ctx, commonDir, pollEvery, trees)
	}
	return w, nil
}

func newWatch() *Watch {
	return &Watch{moved: make(chan struct{}, 1), done: make(chan struct{})}
}

// Moved returns a channel that receives after refs moved: one value for
// however many moves came since it was last received.
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

// absTrees returns trees made absolute under common.
func absTrees(common string, trees []string) []string {
	var out []string
	for _, t := range trees {
		out = append(out, filepath.Join(common, filepath.FromSlash(t)))
	}
	return out
}

// under reports whether path is inside dir, and not dir itself.
func under(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
