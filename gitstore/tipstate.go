package gitstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/storage"
)

// tipState is what a save must know about a session's tip: its sequence
// number and start time (for the new header) and the objects of its tree
// (so as not to write them again). It is cached in .git/snap/cache/ so
// that a save reads no packfile; the cache is checked against the ref
// and rebuilt from the tip's commit and trees when stale.
type tipState struct {
	commit  storage.ID
	seq     int
	started time.Time
	// session is the session the tip's header names, "" for no tip.
	session string
	// known are the objects the tip holds (those of earlier snapshots of
	// the session too, all reachable from its ref); recent are those of
	// them written since the cache's base (see tipCache), which is read
	// only when known is asked about something recent does not hold.
	known, recent hashSet
}

// hashSet is a set of object ids.
type hashSet interface {
	has(storage.ID) bool
	each(func(storage.ID))
}

// sortedHashes is a hashSet of concatenated 20-byte ids in order, as the
// cache file holds them: loading it costs one read, no parsing.
type sortedHashes []byte

func (s sortedHashes) has(h storage.ID) bool {
	lo, hi := 0, len(s)/20
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := bytes.Compare(s[mid*20:mid*20+20], h[:]); {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}

func (s sortedHashes) each(f func(storage.ID)) {
	for i := 0; i+20 <= len(s); i += 20 {
		var h storage.ID
		copy(h[:], s[i:i+20])
		f(h)
	}
}

type mapHashes map[storage.ID]bool

func (m mapHashes) has(h storage.ID) bool { return m[h] }

func (m mapHashes) each(f func(storage.ID)) {
	for h := range m {
		f(h)
	}
}

// maxRecent bounds the ids a tip cache's state holds beyond 1,024, which
// every append reads, checks and writes: at an eighth of a long
// session's base, they made a call cost more the longer the session (a
// 200k-message session's state grew to half a megabyte). Its base is
// then rewritten every few hundred appends.
const maxRecent = 4096

// tipCacheMagic starts a tip cache's state; version 3 keeps the objects
// in two files (see tipCache).
const tipCacheMagic = "git-snap tip cache 3"

// maxCacheBytes bounds any cache file read under .git/snap/: a larger
// one (a sparse file planted there) is not read but rebuilt.
const maxCacheBytes = 256 << 20

// The tip cache of a session ref is two files in
// .git/snap/cache/tip/<ref>/: base, the sorted ids of the objects of an
// earlier snapshot of the session, with its SHA-1 at the end; and state,
// the tip's commit, sequence number and start, the base's SHA-1 and
// count, and the ids of the objects written since (sorted), with the
// SHA-1 of it all. An append writes the small state alone: it neither
// reads nor rewrites the base, which is merged with what came since once
// that has grown past an eighth of it, or past maxRecent ids.
func (s *Store) tipCacheDir(ref string) string {
	return filepath.Join(s.paths.CommonDir, "snap", "cache", "tip", strings.ReplaceAll(ref, "/", "%"))
}

// oldTipCachePath is where versions before 3 kept the tip cache, in one
// file: removed when the new one is written.
func (s *Store) oldTipCachePath(ref string) string {
	return filepath.Join(s.paths.CommonDir, "snap", "cache", strings.ReplaceAll(ref, "/", "%"))
}

// tipState returns the state of tip, from the cache when it matches: its
// checksum holds, it names tip, and its sequence number and start are
// the tip commit's (one commit read; a wrong number in the cache would
// number the next snapshot after it). The objects it lists are checked
// as a write skips them (writeObjects).
func (s *Store) tipState(ref string, tip storage.ID) (tipState, error) {
	if tip.IsZero() {
		return tipState{known: mapHashes{}, recent: mapHashes{}}, nil
	}
	if st, ok := s.readTipCache(ref, tip); ok {
		if e, err := s.Entry(context.Background(), tip); err == nil && e.Header.Seq == st.seq && e.Header.Started.Equal(st.started) {
			st.session = e.Header.Session
			return st, nil
		}
	}
	return s.rebuildTipState(tip)
}

func (s *Store) readTipCache(ref string, tip storage.ID) (tipState, bool) {
	dir := s.tipCacheDir(ref)
	b, err := s.cache.read(filepath.Join(dir, "state"))
	if err != nil {
		return tipState{}, false
	}
	if b, err = checkSummed(b); err != nil {
		return tipState{}, false
	}
	lines := bytes.SplitN(b, []byte("\n"), 6)
	if len(lines) != 6 || string(lines[0]) != tipCacheMagic || string(lines[1]) != tip.String() || len(lines[5])%20 != 0 {
		return tipState{}, false
	}
	seq, err1 := strconv.Atoi(string(lines[2]))
	started, err2 := time.Parse(time.RFC3339Nano, string(lines[3]))
	sum, count, _ := strings.Cut(string(lines[4]), " ")
	n, err3 := strconv.Atoi(count)
	if err1 != nil || err2 != nil || err3 != nil {
		return tipState{}, false
	}
	recent := sortedHashes(lines[5])
	known := &layeredHashes{recent: recent, sum: sum, count: n, path: filepath.Join(dir, "base"), cache: s.cache}
	return tipState{commit: tip, seq: seq, started: started, known: known, recent: recent}, true
}

// layeredHashes are the objects a tip cache lists: its base, read when
// first asked for, and those written since.
type layeredHashes struct {
	recent sortedHashes
	sum    string // the base's SHA-1, hex
	count  int    // the ids the base holds
	path   string
	cache  *sessionCache
	base   sortedHashes
	read   bool
}

// load reads the base once. One that does not read, or is not the one
// the state names, lists nothing: the cache only spares writes.
func (l *layeredHashes) load() sortedHashes {
	if l.read {
		return l.base
	}
	l.read = true
	b, err := l.cache.read(l.path)
	if err != nil || len(b) < sha1.Size || hex.EncodeToString(b[len(b)-sha1.Size:]) != l.sum {
		return nil
	}
	if b, err = checkSummed(b); err == nil && len(b) == 20*l.count {
		l.base = sortedHashes(b)
	}
	return l.base
}

func (l *layeredHashes) has(h storage.ID) bool { return l.recent.has(h) || l.load().has(h) }

func (l *layeredHashes) each(f func(storage.ID)) {
	l.recent.each(f)
	l.load().each(f)
}

// saveTipState writes the cache: the ids of objs and more added to those of known
// (the tip's, when the new tree holds them too; nil otherwise). After an
// append on a cached tip, only the state is written, its recent ids
// merged with the few new ones; otherwise, or once those are many, a new
// base of them all. Failing to write is harmless: the next save rebuilds
// the cache.
func (s *Store) saveTipState(ref string, st tipState, objs []gitobj.Object, more []storage.ID, known hashSet) {
	ids := make([]storage.ID, 0, len(objs)+len(more))
	ids = append(ids, more...)
	for _, o := range objs {
		ids = append(ids, o.Hash)
	}
	slices.SortFunc(ids, func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	dir := s.tipCacheDir(ref)
	l, layered := known.(*layeredHashes)
	var base, recent []byte
	var sum string
	count := 0
	switch {
	case layered && len(l.recent)+20*len(ids) <= 20*(min(l.count/8, maxRecent)+1024):
		recent, sum, count = mergeSorted(l.recent, ids), l.sum, l.count
	case layered:
		base = mergeSorted(l.load(), hashesOf(sortedHashes(mergeSorted(l.recent, ids))))
	default:
		base = mergeSorted(sortedOf(known), ids)
	}
	if base != nil {
		digest := sha1.Sum(base)
		if !s.cache.write(filepath.Join(dir, "base"), append(base, digest[:]...)) {
			return
		}
		sum, count = hex.EncodeToString(digest[:]), len(base)/20
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%d\n%s\n%s %d\n", tipCacheMagic, st.commit, st.seq, st.started.UTC().Format(time.RFC3339Nano), sum, count)
	b.Write(recent)
	s.cache.write(filepath.Join(dir, "state"), withSum(b.Bytes()))
	os.Remove(s.oldTipCachePath(ref))
}

// hashesOf lists the ids of a sorted list.
func hashesOf(l sortedHashes) []storage.ID {
	out := make([]storage.ID, 0, len(l)/20)
	l.each(func(h storage.ID) { out = append(out, h) })
	return out
}

// withSum appends the SHA-1 of data to it, as git ends its index.
func withSum(data []byte) []byte {
	sum := sha1.Sum(data)
	return append(data, sum[:]...)
}

// errBadSum says a cache file's checksum does not hold.
var errBadSum = errors.New("checksum does not match")

// checkSummed returns data without its SHA-1 trailer, if that holds.
func checkSummed(data []byte) ([]byte, error) {
	if len(data) < sha1.Size {
		return nil, errBadSum
	}
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if want := sha1.Sum(body); !bytes.Equal(want[:], sum) {
		return nil, errBadSum
	}
	return body, nil
}

// sortedOf gives a hashSet as sortedHashes.
func sortedOf(set hashSet) sortedHashes {
	switch k := set.(type) {
	case nil:
		return nil
	case sortedHashes:
		return k
	}
	var ids []storage.ID
	set.each(func(h storage.ID) { ids = append(ids, h) })
	slices.SortFunc(ids, func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) })
	out := make(sortedHashes, 0, 20*len(ids))
	for _, h := range ids {
		out = append(out, h[:]...)
	}
	return out
}

// mergeSorted merges sorted, distinct ids into a sorted list, each id
// once: the runs of the list between them are copied whole.
func mergeSorted(list sortedHashes, ids []storage.ID) []byte {
	out := make([]byte, 0, len(list)+20*len(ids))
	done := 0 // list[:done] is in out
	for _, h := range ids {
		at := done + 20*sort.Search((len(list)-done)/20, func(k int) bool {
			return bytes.Compare(list[done+20*k:done+20*k+20], h[:]) >= 0
		})
		out = append(out, list[done:at]...)
		done = at
		if done+20 <= len(list) && bytes.Equal(list[done:done+20], h[:]) {
			continue
		}
		out = append(out, h[:]...)
	}
	return append(out, list[done:]...)
}

// writeFileAtomic replaces a cache file by rename, so that a reader sees
// the old or the new content, never a part, and says whether it did.
// Failing is harmless: caches are rebuilt.
func writeFileAtomic(path string, data []byte) bool {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return false
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return false
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err == nil
}

// rebuildTipState reads the tip's commit and walks its trees (not its
// blobs) to learn which objects it holds.
func (s *Store) rebuildTipState(tip storage.ID) (tipState, error) {
	c, err := s.st.commit(tip)
	if err != nil {
		return tipState{}, fmt.Errorf("read session tip %s: %w", tip, err)
	}
	e, err := entryOf(tip, c)
	if err != nil {
		return tipState{}, err
	}
	known := mapHashes{}
	var walk func(h storage.ID) error
	walk = func(h storage.ID) error {
		known[h] = true
		t, err := s.st.tree(h)
		if err != nil {
			return err
		}
		for _, en := range t.Entries {
			if en.Mode == filemode.Dir {
				if err := walk(en.Hash); err != nil {
					return err
				}
			} else {
				known[en.Hash] = true
			}
		}
		return nil
	}
	if err := walk(c.Tree); err != nil {
		return tipState{}, fmt.Errorf("read tree of session tip %s: %w", tip, err)
	}
	return tipState{commit: tip, seq: e.Header.Seq, started: e.Header.Started, session: e.Header.Session, known: known, recent: known}, nil
}

func (s *Store) dropTipState(ref string) {
	s.cache.remove(filepath.Join(s.tipCacheDir(ref), "state"))
	os.Remove(s.oldTipCachePath(ref))
}
