package codestate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-snap/git-snap/internal/safefile"
)

// cache is what the last look at the work tree found, true at a
// watchman clock; the next call asks watchman what changed since, and
// looks at those files alone. It is kept in <git dir>/snap/codestate.
type cache struct {
	Version  int    `json:"version"`
	Root     string `json:"root"`  // the work tree it is of
	Watch    string `json:"watch"` // what watchman watches, and the tree in it
	Relative string `json:"relative,omitempty"`
	Clock    string `json:"clock"`
	// Stamps are the files whose change sends the next call to git:
	// the index, HEAD, the ignore files, the settings.
	Stamps []stamp `json:"stamps"`
	Commit string  `json:"commit,omitempty"`
	Branch string  `json:"branch,omitempty"`
	// HeadRef is the ref HEAD names, "" when detached.
	HeadRef string `json:"head_ref,omitempty"`
	// Filters says content may be filtered on its way into git
	// (core.autocrlf, a filter, a .gitattributes): a file whose hash
	// differs from its entry's is then left to git status.
	Filters  bool `json:"filters,omitempty"`
	FileMode bool `json:"file_mode"`
	// Excludes is the user's excludes file git reads ("" for none).
	Excludes string `json:"excludes,omitempty"`
	// Entries are the files git status reported, by path.
	Entries []entry `json:"entries"`
}

// entry is a file git status reports: a tracked one with its two status
// letters, an untracked one, or both (deleted from the index, there in
// the work tree).
type entry struct {
	Path      string `json:"path"`
	XY        string `json:"xy,omitempty"`
	Untracked bool   `json:"untracked,omitempty"`
}

// cacheVersion changes whenever what the cache holds means something
// else; a cache of another version is not read.
const cacheVersion = 1

// maxCache bounds the cache read: a few hundred changed files take a
// fraction of it.
const maxCache = 16 << 20

func cachePath(gitDir string) string { return filepath.Join(gitDir, "snap", "codestate") }
func tablePath(gitDir string) string { return filepath.Join(gitDir, "snap", "codestate-index") }

// loadCache reads the cache; none, or one of another version or root,
// is no cache.
func loadCache(gitDir, root string) (*cache, bool) {
	b, err := readSmall(cachePath(gitDir), maxCache)
	if err != nil {
		return nil, false
	}
	var c cache
	if json.Unmarshal(b, &c) != nil || c.Version != cacheVersion || c.Root != root || c.Clock == "" {
		return nil, false
	}
	return &c, true
}

func readSmall(name string, max int64) ([]byte, error) {
	f, err := safefile.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: larger than %d bytes", name, max)
	}
	return b, err
}

// save writes the cache in place of the last, whole or not at all.
func (c *cache) save(gitDir string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return writeWhole(cachePath(gitDir), b)
}

// writeWhole writes a file by renaming a temporary one over it, so that
// a reader sees the old one or the new one.
func writeWhole(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// remove drops the cache: what it says may no longer be true.
func removeCache(gitDir string) {
	_ = os.Remove(cachePath(gitDir))
}

// stamp says when a file last changed, as far as its stat tells: one
// that differs is a file changed (or made, or removed) since.
type stamp struct {
	Path  string `json:"path"`
	Size  int64  `json:"size,omitempty"`
	Mtime int64  `json:"mtime,omitempty"` // nanoseconds
	Ctime uint64 `json:"ctime,omitempty"` // seconds<<32 | nanoseconds, where known
	Ino   uint32 `json:"ino,omitempty"`
	There bool   `json:"there,omitempty"`
}

func stampOf(name string) stamp {
	s := stamp{Path: name}
	fi, err := os.Stat(name)
	if err != nil {
		return s
	}
	cs, cn, ino, _, _ := sysStat(fi)
	s.Size, s.Mtime, s.Ctime, s.Ino, s.There = fi.Size(), fi.ModTime().UnixNano(), uint64(cs)<<32|uint64(cn), ino, true
	return s
}

func stampsOf(names []string) []stamp {
	out := make([]stamp, len(names))
	for i, n := range names {
		out[i] = stampOf(n)
	}
	return out
}

func sameStamps(a, b []stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The index table is kept beside the cache, in binary: a header, then
// each checkpoint's place and names.
const tableMagic = "snapidx1"

func (t *indexTable) save(gitDir string, index stamp) error {
	var b bytes.Buffer
	b.WriteString(tableMagic)
	ix, err := json.Marshal(index)
	if err != nil {
		return err
	}
	put := func(v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
	str := func(s string) { put(uint64(len(s))); b.WriteString(s) }
	str(string(ix))
	str(t.unfit)
	put(uint64(t.version))
	put(uint64(t.end))
	put(boolInt(t.attributes))
	put(uint64(len(t.points)))
	for _, p := range t.points {
		put(uint64(p.off))
		str(p.name)
		str(p.prev)
	}
	return writeWhole(tablePath(gitDir), b.Bytes())
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// errTable means the table is not there or not of this index.
var errTable = errors.New("no index table")

// maxTable bounds the table: 30 bytes and a name for every 128 entries
// of an index of a few million files.
const maxTable = 256 << 20

// loadTable reads the table made of the index whose stamp is index.
func loadTable(gitDir string, index stamp) (*indexTable, error) {
	raw, err := readSmall(tablePath(gitDir), maxTable)
	if err != nil {
		return nil, errTable
	}
	r := bytes.NewReader(raw)
	if string(raw[:min(len(raw), len(tableMagic))]) != tableMagic {
		return nil, errTable
	}
	_, _ = r.Seek(int64(len(tableMagic)), io.SeekStart)
	var bad bool
	get := func() uint64 {
		v, err := binary.ReadUvarint(r)
		bad = bad || err != nil
		return v
	}
	str := func() string {
		n := get()
		if bad || n > uint64(r.Len()) {
			bad = true
			return ""
		}
		s := make([]byte, n)
		_, _ = io.ReadFull(r, s)
		return string(s)
	}
	var made stamp
	if json.Unmarshal([]byte(str()), &made) != nil || made != index {
		return nil, errTable
	}
	t := &indexTable{unfit: str(), version: int(get()), end: int64(get()), attributes: get() == 1}
	n := get()
	if bad || n > uint64(r.Len()) {
		return nil, errTable
	}
	t.points = make([]checkpoint, 0, n)
	for range n {
		p := checkpoint{off: int64(get()), name: str(), prev: str()}
		t.points = append(t.points, p)
	}
	if bad {
		return nil, errTable
	}
	return t, nil
}

// exists reports whether name is there (an error other than its absence
// counts as there: it is left to git).
func exists(name string) bool {
	_, err := os.Lstat(name)
	return !errors.Is(err, fs.ErrNotExist)
}
