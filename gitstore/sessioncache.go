package gitstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-snap/git-snap/internal/mmapfile"
	"github.com/git-snap/git-snap/internal/safefile"
)

// sessionCache is where a store keeps the caches of its sessions' tips
// (tip state and tally, under .git/snap/cache/tip/ and tally/): files,
// or, for a store of a batch (an import), memory. An import writes each
// session once or in a few steps, one after the other, and a session it
// wrote is seldom appended to again; its caches on disk were four small
// files and two directories a session, which cost more space than its
// objects did (24 KB a session beside 11 KB of pack). The next save of
// such a session rebuilds its caches from its tip, once. In memory, a
// cache is kept for the one session last written, which is the one the
// next step of an import goes on with.
type sessionCache struct {
	mu    sync.Mutex
	files map[string][]byte // nil: the files on disk
	last  map[string]string // for each kind of cache, the session's directory last written
}

// inMemory makes a cache that keeps its files in memory.
func inMemory() *sessionCache {
	return &sessionCache{files: map[string][]byte{}, last: map[string]string{}}
}

// read returns a cache file's content (a copy: readers keep parts of it).
func (c *sessionCache) read(path string) ([]byte, error) {
	if data, ok := c.held(path); ok {
		return data, nil
	}
	return safefile.ReadFile(context.Background(), path, "", maxCacheBytes)
}

// mapFile gives a cache file's content to read in place while unmap is
// not called: a file is mapped, not read, since a long session's tally
// is megabytes of which an append reads a few entries.
func (c *sessionCache) mapFile(path string) (data []byte, unmap func(), err error) {
	if data, ok := c.held(path); ok {
		return data, func() {}, nil
	}
	return mmapfile.Map(path)
}

func (c *sessionCache) held(path string) ([]byte, bool) {
	if c == nil || c.files == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.files[path]
	return bytes.Clone(data), ok
}

// write replaces a cache file and says whether it did. In memory, it
// forgets the files of the session written before in the same kind of
// cache, and removes the file on disk, which would name a tip the
// session has left.
func (c *sessionCache) write(path string, data []byte) bool {
	if c == nil || c.files == nil {
		return writeFileAtomic(path, data)
	}
	_ = os.Remove(path) // gone already is as good
	dir := filepath.Dir(path)
	kind := filepath.Dir(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	if last := c.last[kind]; last != dir {
		for p := range c.files {
			if strings.HasPrefix(p, last+string(filepath.Separator)) {
				delete(c.files, p)
			}
		}
		c.last[kind] = dir
	}
	c.files[path] = bytes.Clone(data)
	return true
}

// remove removes a cache file, wherever it is.
func (c *sessionCache) remove(path string) {
	if c != nil && c.files != nil {
		c.mu.Lock()
		delete(c.files, path)
		c.mu.Unlock()
	}
	_ = os.Remove(path) // gone already is as good
}
