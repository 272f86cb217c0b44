package gitstore

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Totals gives each entry's totals: its header's when the snapshot was
// counted as it was written (and has the conversation's messages
// counted), else the totals the store counts of its document. Those are
// remembered under .git/snap/cache/, so that the document of a snapshot
// written before totals existed is read once, not on every call. ok[i]
// is false when entries[i] has no totals, which only a store that
// counts nothing (in tests) gives.
func (s *Store) Totals(ctx context.Context, entries []storage.Entry) (out []snapshot.Totals, ok []bool, err error) {
	return s.TotalsProgress(ctx, entries, nil)
}

// HasTotals reports whether a snapshot's header holds its totals, so
// that Totals returns them without reading anything: a snapshot counted
// before conversation messages were has records and no such count, and
// its document is counted again.
func HasTotals(h snapshot.Header) bool {
	return h.Counted && (h.Totals.Messages > 0 || h.Messages == 0)
}

// TotalsProgress is Totals, telling progress, when not nil, how many of
// the documents it must count (those of snapshots written without
// totals and not remembered) it has counted, before each and after the
// last: the once-only upgrade of a repository an older version wrote.
func (s *Store) TotalsProgress(ctx context.Context, entries []storage.Entry, progress func(done, of int)) (out []snapshot.Totals, ok []bool, err error) {
	out, ok = make([]snapshot.Totals, len(entries)), make([]bool, len(entries))
	var cache totalsCache
	var todo []int
	for i, e := range entries {
		if HasTotals(e.Header) {
			out[i], ok[i] = e.Header.Totals, true
			continue
		}
		if s.counter == nil {
			continue
		}
		if cache == nil {
			cache = s.readTotalsCache()
		}
		if t, hit := cache.get(e.ID); hit {
			out[i], ok[i] = t, true
			continue
		}
		todo = append(todo, i)
	}
	for n, i := range todo {
		if progress != nil {
			progress(n, len(todo))
		}
		t, err := s.countOf(ctx, entries[i])
		if err != nil {
			return nil, nil, err
		}
		out[i], ok[i] = t, true
		cache.set(entries[i].ID, out[i])
		// Remembered as it goes: an upgrade cut short is not begun again.
		if n%100 == 99 {
			s.writeTotalsCache(cache, entries)
		}
	}
	if len(todo) > 0 {
		if progress != nil {
			progress(len(todo), len(todo))
		}
		s.writeTotalsCache(cache, entries)
	}
	return out, ok, nil
}

const (
	totalsCacheMagic = "git-snap totals cache 4" // 4: checksummed; usage with one-hour cache writes and long-context parts; conversation messages
	maxTotalsCache   = 100_000                   // entries kept; beyond, only those last asked for
)

func (s *Store) totalsCachePath() string {
	return filepath.Join(s.paths.CommonDir, "snap", "cache", "totals")
}

// totalsCache is the remembered totals of snapshots by id, each kept as
// the JSON it was read or written as: a call that asks for a few of many
// decodes only those.
type totalsCache map[storage.ID][]byte

// get decodes id's totals, if remembered.
func (c totalsCache) get(id storage.ID) (snapshot.Totals, bool) {
	var t snapshot.Totals
	js, hit := c[id]
	return t, hit && json.Unmarshal(js, &t) == nil
}

// set remembers id's totals.
func (c totalsCache) set(id storage.ID, t snapshot.Totals) {
	if js, err := json.Marshal(t); err == nil {
		c[id] = js
	}
}

// readTotalsCache reads the remembered totals: a line per snapshot, its
// id and its totals as JSON, and the SHA-1 of all that at the end. A
// file that is not a regular file, too large, or whose checksum fails
// is no cache (rebuilt as it is used); a line that does not read is
// skipped when asked for.
func (s *Store) readTotalsCache() totalsCache {
	out := totalsCache{}
	data, err := safefile.ReadFile(context.Background(), s.totalsCachePath(), "", maxCacheBytes)
	if err != nil {
		return out
	}
	if data, err = checkSummed(data); err != nil {
		return out
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(first) != totalsCacheMagic {
		return out
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		id, js, found := bytes.Cut(line, []byte(" "))
		if found && storage.IsID(string(id)) {
			out[storage.NewID(string(id))] = js
		}
	}
	return out
}

// writeTotalsCache replaces the cache with m, or, when m has grown past
// maxTotalsCache, with the entries just asked for.
func (s *Store) writeTotalsCache(m totalsCache, asked []storage.Entry) {
	if len(m) > maxTotalsCache {
		keep := make(totalsCache, len(asked))
		for _, e := range asked {
			if js, ok := m[e.ID]; ok {
				keep[e.ID] = js
			}
		}
		m = keep
	}
	var b bytes.Buffer
	b.WriteString(totalsCacheMagic + "\n")
	for id, js := range m {
		b.WriteString(id.String() + " ")
		b.Write(js)
		b.WriteByte('\n')
	}
	writeFileAtomic(s.totalsCachePath(), withSum(b.Bytes()))
}

// CheckpointsBySession lists the checkpoint names of every session from one
// listing of the refs, reading no tag: session → names.
func (s *Store) CheckpointsBySession() (map[string][]string, error) {
	out := map[string][]string{}
	for _, prefix := range s.checkpointPrefixes() {
		refs, err := s.refs.List(prefix)
		if err != nil {
			return nil, err
		}
		for ref := range refs {
			session, name, ok := strings.Cut(strings.TrimPrefix(ref, prefix), "/")
			if ok && !strings.Contains(name, "/") && !slices.Contains(out[session], name) {
				out[session] = append(out[session], name)
			}
		}
	}
	return out, nil
}

// countOf counts snapshot e's document: a record at a time where its
// agent allows, so that a long session is never held whole.
func (s *Store) countOf(ctx context.Context, e storage.Entry) (snapshot.Totals, error) {
	o, err := s.openSnapshot(ctx, e.ID)
	if err != nil {
		return snapshot.Totals{}, err
	}
	// A snapshot written before totals may not say how many messages
	// it holds: they are listed.
	elems, _, err := s.reader.Elements(o.tree.Messages, nil)
	if err != nil {
		return snapshot.Totals{}, err
	}
	t, err := s.streamTally(ctx, o, o.rest, len(elems), nil, e.Header.Source)
	if err != nil {
		return snapshot.Totals{}, err
	}
	return t.Totals(), nil
}
