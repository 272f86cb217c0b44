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

// notifier watches through fsnotify, so the system reports what changed.
type notifier struct {
	*Watch
	fs     *fsnotify.Watcher
	common string   // the repository's common dir
	trees  []string // the watched directories, absolute
	above  []string // the directories between the common dir and the trees
}

// startNotify starts a watch that the system notifies of changes.
func startNotify(ctx context.Context, commonDir string, trees []string) (*Watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch refs: %w", err)
	}
	common := filepath.Clean(commonDir)
	w := &notifier{Watch: newWatch(), fs: fw, common: common, trees: absTrees(common, trees)}
	w.stop = fw.Close
	// Watch the common dir for packed-refs, and the directories above
	// each tree for the tree's creation; an event there names one entry.
	if err := fw.Add(w.common); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch refs in %s: %w", w.common, err)
	}
	w.above = w.parents()
	if err := w.addAll(); err != nil {
		fw.Close()
		return nil, err
	}
	go w.run(ctx)
	return w.Watch, nil
}

// addAll watches the trees and the directories above them, those that
// exist.
func (w *notifier) addAll() error {
	for _, dir := range w.above {
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

// parents returns the directories between the common dir and each tree.
func (w *notifier) parents() []string {
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

// addTree watches dir and every directory under it. A dir that does not
// exist, or was removed meanwhile, is not an error.
func (w *notifier) addTree(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // gone meanwhile, or a ref
		}
		if err := w.fs.Add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch refs in %s: %w", path, err)
		}
		return nil
	})
	return err
}

func (w *notifier) run(ctx context.Context) {
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
			w.take(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.signal() // moves were lost, so the reader rereads all refs
			}
		}
	}
}

// take signals a move for an event that may be one, and starts watching
// a new tree or a new directory under a tree.
func (w *notifier) take(ev fsnotify.Event) {
	if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) {
		return
	}
	if strings.HasSuffix(ev.Name, ".lock") {
		return // a ref being written: its rename into place is the move
	}
	dir := filepath.Dir(ev.Name)
	if dir == w.common && filepath.Base(ev.Name) != "packed-refs" {
		return
	}
	tree := w.treeOf(ev.Name)
	if tree == "" && ev.Has(fsnotify.Create) && slices.Contains(w.above, ev.Name) {
		// A directory above a tree, created together with the tree and
		// its first ref (git update-ref creates them all) before it
		// was watched.
		_ = w.addAll()
		if w.treeExistsUnder(ev.Name) {
			w.signal()
		}
		return
	}
	if tree == "" && dir != w.common {
		return // next to a tree's parent directories, not in a tree
	}
	if tree != "" && ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Refs may have been written in it before it was watched.
			_ = w.addTree(ev.Name)
		}
	}
	w.signal()
}

// treeExistsUnder reports whether a watched tree under dir exists.
func (w *notifier) treeExistsUnder(dir string) bool {
	for _, t := range w.trees {
		if under(t, dir) {
			if _, err := os.Lstat(t); err == nil {
				return true
			}
		}
	}
	return false
}

// treeOf returns the watched tree that path is in or is, or "" when
// there is none.
func (w *notifier) treeOf(path string) string {
	for _, t := range w.trees {
		if path == t || under(path, t) {
			return t
		}
	}
	return ""
}
