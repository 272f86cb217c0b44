// Package refwatch notifies a long-running reader of a git repository
// when refs under some of its directories may have changed, so that the
// reader can reload them before anyone asks for them.
//
// A notification is only a hint. The reader still reads the refs it
// serves. If a watch cannot start, or loses events, the only cost is
// that the first read after a change has to load the refs itself, as
// it would without a watch. A change is signalled for every file
// written, renamed or removed under the watched directories (except
// lock files), and for the repository's packed-refs file, which git
// pack-refs and git gc rewrite.
package refwatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// Watch watches some of the refs of one repository.
type Watch struct {
	fs      *fsnotify.Watcher
	common  string   // the repository's common dir
	trees   []string // absolute paths of the watched directories
	parents []string // the directories between the common dir and the trees
	moved   chan struct{}
	done    chan struct{}
}

// Start watches the refs under trees until ctx is done or Close is
// called. Each tree is a directory relative to the repository's common
// dir (its .git), such as "refs/snap". A tree that does not exist yet is
// watched once it is created.
func Start(ctx context.Context, commonDir string, trees ...string) (*Watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch refs: %w", err)
	}
	w := &Watch{fs: fw, common: filepath.Clean(commonDir), moved: make(chan struct{}, 1), done: make(chan struct{})}
	for _, t := range trees {
		w.trees = append(w.trees, filepath.Join(w.common, filepath.FromSlash(t)))
	}
	// Watch the common dir for changes to packed-refs, and the
	// directories above each tree for the tree's creation. Events in a
	// directory name only its direct entries, so each level needs a watch.
	if err := fw.Add(w.common); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch refs in %s: %w", w.common, err)
	}
	w.parents = w.parentDirs()
	if err := w.addAll(); err != nil {
		fw.Close()
		return nil, err
	}
	go w.run(ctx)
	return w, nil
}

// addAll watches the trees and the directories above them, skipping
// those that do not exist.
func (w *Watch) addAll() error {
	for _, dir := range w.parents {
		if err := w.fs.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch refs in %s: %w", dir, err)
		}
	}
	for _, t := range w.trees {
		if err := w.addTree(t); err != nil {
			return err
		}
	}
	return nil
}

// Moved returns a channel that receives a value after refs change. It
// holds at most one value, however many changes happened since the last
// receive.
func (w *Watch) Moved() <-chan struct{} { return w.moved }

// Close stops the watch.
func (w *Watch) Close() error {
	err := w.fs.Close()
	<-w.done
	return err
}

// parentDirs returns the directories between the common dir and each
// tree.
func (w *Watch) parentDirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range w.trees {
		for d := filepath.Dir(t); under(d, w.common); d = filepath.Dir(d) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// addTree watches dir and every directory under it. A directory that
// does not exist, or is removed during the walk, is not an error.
func (w *Watch) addTree(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // removed during the walk, or a ref file
		}
		if err := w.fs.Add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch refs in %s: %w", path, err)
		}
		return nil
	})
	return err
}

func (w *Watch) run(ctx context.Context) {
	defer close(w.done)
	for {
		select {
		case <-ctx.Done():
			w.fs.Close()
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.signal() // events were lost: have the reader reload everything
			}
		}
	}
}

// handle signals a change for an event that may be one. It also starts
// watching a tree, or a directory under a tree, when one is created.
func (w *Watch) handle(ev fsnotify.Event) {
	if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) {
		return
	}
	if strings.HasSuffix(ev.Name, ".lock") {
		return // a ref being written; renaming the lock file into place is the change
	}
	dir := filepath.Dir(ev.Name)
	if dir == w.common && filepath.Base(ev.Name) != "packed-refs" {
		return
	}
	tree := w.treeContaining(ev.Name)
	if tree == "" && ev.Has(fsnotify.Create) && slices.Contains(w.parents, ev.Name) {
		// A directory above a tree was created. git update-ref creates
		// it together with the tree and the tree's first ref, possibly
		// before the watch on the new directory was added.
		_ = w.addAll()
		if w.treeExistsUnder(ev.Name) {
			w.signal()
		}
		return
	}
	if tree == "" && dir != w.common {
		return // next to a tree's parent directories, not inside a tree
	}
	if tree != "" && ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Refs may have been written in it before it was watched.
			_ = w.addTree(ev.Name)
		}
	}
	w.signal()
}

// treeExistsUnder reports whether a tree under the directory dir exists.
func (w *Watch) treeExistsUnder(dir string) bool {
	for _, t := range w.trees {
		if under(t, dir) {
			if _, err := os.Lstat(t); err == nil {
				return true
			}
		}
	}
	return false
}

// treeContaining returns the watched tree that path is in or is, or ""
// if there is none.
func (w *Watch) treeContaining(path string) string {
	for _, t := range w.trees {
		if path == t || under(path, t) {
			return t
		}
	}
	return ""
}

func (w *Watch) signal() {
	select {
	case w.moved <- struct{}{}:
	default: // a signal is already pending
	}
}

// under reports whether path is inside dir. It is false for dir itself.
func under(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
