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

// Watch is a running watch of some refs of one repository.
type Watch struct {
	fs     *fsnotify.Watcher
	common string   // the repository's common dir
	trees  []string // the watched folders, absolute
	above  []string // the folders between the common dir and the trees
	moved  chan struct{}
	done   chan struct{}
}

// Start watches the refs under trees, each a folder relative to the
// repository's common dir (its .git), such as "refs/snap", until ctx ends
// or Close is called. A folder that does not exist yet is watched from
// when it is made.
func Start(ctx context.Context, commonDir string, trees ...string) (*Watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch refs: %w", err)
	}
	w := &Watch{fs: fw, common: filepath.Clean(commonDir), moved: make(chan struct{}, 1), done: make(chan struct{})}
	for _, t := range trees {
		w.trees = append(w.trees, filepath.Join(w.common, filepath.FromSlash(t)))
	}
	// The common dir is watched for packed-refs and the folders above
	// each tree for the tree's making: an event there names one entry.
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
	return w, nil
}

// addAll watches the folders above the trees and the trees, those that
// are there.
func (w *Watch) addAll() error {
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

// Moved receives after refs moved: one value for however many moves
// came since it was last received.
func (w *Watch) Moved() <-chan struct{} { return w.moved }

// Close stops the watch.
func (w *Watch) Close() error {
	err := w.fs.Close()
	<-w.done
	return err
}

// parents are the folders between the common dir and each tree.
func (w *Watch) parents() []string {
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

// addTree watches dir and every folder under it; a dir that is not
// there, or went meanwhile, is not an error.
func (w *Watch) addTree(dir string) error {
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
			w.take(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.signal() // moves were lost: the reader reads all again
			}
		}
	}
}

// take signals a move for an event that may be one, and watches a
// folder made under a tree, or a tree made.
func (w *Watch) take(ev fsnotify.Event) {
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
		// A folder above a tree, made with the tree and its first ref
		// in it (git update-ref makes them all) before it was watched.
		_ = w.addAll()
		if w.treeMadeIn(ev.Name) {
			w.signal()
		}
		return
	}
	if tree == "" && dir != w.common {
		return // beside a tree's parent folders, not in a tree
	}
	if tree != "" && ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Refs may have been written in it before it was watched.
			_ = w.addTree(ev.Name)
		}
	}
	w.signal()
}

// treeMadeIn tells whether a tree under the folder dir is there.
func (w *Watch) treeMadeIn(dir string) bool {
	for _, t := range w.trees {
		if under(t, dir) {
			if _, err := os.Lstat(t); err == nil {
				return true
			}
		}
	}
	return false
}

// treeOf is the watched tree path is in, or is; "" when none.
func (w *Watch) treeOf(path string) string {
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
	default: // one is waiting already
	}
}

// under tells whether path is inside dir, not dir itself.
func under(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
