package gitstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// A session's tally (a storage.Tally of the Counter the store was
// opened with) is kept under .git/snap/cache/tally/,
// one file per session ref, for the snapshot at its tip: the next append
// goes on counting from it with the records it adds, and writes its
// totals without reading what the session held. The file is never
// trusted: it names the commit it counts, its checksum must hold, and
// its totals must be those the commit's trailers say; else the tip's
// document is counted once, and the file written anew.

// tallyMagic starts a tally cache file.
const tallyMagic = "git-snap tally cache 2"

// tallyDir holds the tally of a session ref's tip in two files (see
// storage.Tally.Marshal): base, rewritten seldom, and state, written
// on every append. The base starts with a random id, which the state
// names, and ends with a CRC-32C of it all (read on every append, a
// base of a long session is checked in a tenth of the time a SHA-1
// takes); the state ends with its SHA-1.
func (s *Store) tallyDir(ref string) string {
	return filepath.Join(s.paths.CommonDir, "snap", "cache", "tally", strings.ReplaceAll(ref, "/", "%"))
}

// keptTally is a tally to keep, with the id of the base it was read
// with ("" for none).
type keptTally struct {
	storage.Tally
	baseID string
}

// cachedTally reads the tally of e, the snapshot at the tip of the
// session at ref, when the cache holds it and it holds for e; nil
// otherwise.
func (s *Store) cachedTally(ref string, e storage.Entry) *keptTally {
	if !e.Header.Counted {
		return nil
	}
	dir := s.tallyDir(ref)
	state, err := s.cache.read(filepath.Join(dir, "state"))
	if err != nil {
		return nil
	}
	if state, err = checkSummed(state); err != nil {
		return nil
	}
	lines := bytes.SplitN(state, []byte("\n"), 4)
	if len(lines) != 4 || string(lines[0]) != tallyMagic || string(lines[1]) != e.ID.String() {
		return nil
	}
	// The base is mapped, not read: a long session's is megabytes, of
	// which an append looks up a few entries, and a copy of it made a
	// hook call cost more the longer the session.
	base, unmap, err := s.cache.mapFile(filepath.Join(dir, "base"))
	if err != nil {
		return nil
	}
	kept := s.resumeTally(e, base, lines)
	if kept == nil {
		unmap()
		return nil
	}
	// The tally reads the mapping as long as it lives.
	runtime.AddCleanup(kept, func(unmap func()) { unmap() }, unmap)
	return kept
}

// resumeTally resumes the tally of e from a base and the lines of its
// state, when the base is the one the state names and its checksum
// holds; nil otherwise.
func (s *Store) resumeTally(e storage.Entry, base []byte, lines [][]byte) *keptTally {
	if len(base) < 12 || len(base) > maxCacheBytes || hex.EncodeToString(base[:8]) != string(lines[2]) {
		return nil
	}
	body, sum := base[:len(base)-4], binary.LittleEndian.Uint32(base[len(base)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil
	}
	t, err := s.counter.ResumeTally(body[8:], lines[3])
	if err != nil || t.Source() != e.Header.Source || !sameTotals(t.Totals(), e.Header.Totals) {
		return nil
	}
	return &keptTally{t, string(lines[2])}
}

// saveTally keeps t, the tally of the snapshot id at the tip of ref.
// Failing to is harmless: the next append counts the document once.
func (s *Store) saveTally(ref string, id storage.ID, t *keptTally) {
	dir := s.tallyDir(ref)
	base, newBase, state := t.Marshal()
	if newBase {
		file := binary.LittleEndian.AppendUint64(nil, rand.Uint64())
		file = append(file, base...)
		file = binary.LittleEndian.AppendUint32(file, crc32.Checksum(file, crc32.MakeTable(crc32.Castagnoli)))
		if !s.cache.write(filepath.Join(dir, "base"), file) {
			return
		}
		t.baseID = hex.EncodeToString(file[:8])
	}
	var b bytes.Buffer
	b.WriteString(tallyMagic + "\n" + id.String() + "\n" + t.baseID + "\n")
	b.Write(state)
	s.cache.write(filepath.Join(dir, "state"), withSum(b.Bytes()))
}

func (s *Store) dropTally(ref string) { s.cache.remove(filepath.Join(s.tallyDir(ref), "state")) }

// sameTotals compares totals as a commit's trailers write them.
func sameTotals(a, b snapshot.Totals) bool {
	ha := snapshot.Header{Session: "s", Counted: true, Totals: a}
	hb := ha
	hb.Totals = b
	return layout.CommitMessage(ha) == layout.CommitMessage(hb)
}

// countDocument counts a whole document: its totals, and, when the store
// keeps tallies, the tally to keep for the snapshot it is.
func (s *Store) countDocument(doc map[string]any, source string) (snapshot.Totals, *keptTally) {
	t := s.counter.TallyOf(doc, source)
	return t.Totals(), &keptTally{Tally: t}
}

// appendTotals counts the snapshot an append makes on tip (base, opened,
// at ref): the tip's tally, from the cache or counted from its stored
// records once, goes on with what the delta adds when it appends live
// records; else the new document is counted whole. rest is the new
// snapshot's members other than messages, events and files.
func (s *Store) appendTotals(ctx context.Context, ref string, tip storage.ID, base opened, source string, d storage.Delta, rest map[string]any) (snapshot.Totals, *keptTally, error) {
	// The members as the snapshot will read back: a writer's Go values
	// (an int where a read gives a snapshot.Number) read as those do.
	rest, err := readBack(rest)
	if err != nil {
		return snapshot.Totals{}, nil, err
	}
	stored := base.Header.Messages
	var t storage.Tally
	if tip.IsZero() {
		t = s.counter.NewTally(source)
	} else if kept := s.cachedTally(ref, base.Entry); kept != nil {
		if kept.Append(base.rest, stored, rest, d.Messages, d.Events) {
			return kept.Totals(), kept, nil
		}
	} else if t, err = s.streamTally(ctx, base, base.rest, stored, nil, source); err != nil {
		return snapshot.Totals{}, nil, err
	}
	if t != nil && t.Append(base.rest, stored, rest, d.Messages, d.Events) {
		return t.Totals(), &keptTally{Tally: t}, nil
	}
	// Not an append of live records: the new document, whole.
	if t, err = s.streamTally(ctx, base, rest, stored, &d, source); err != nil {
		return snapshot.Totals{}, nil, err
	}
	return t.Totals(), &keptTally{Tally: t}, nil
}

// streamTally counts the snapshot whose members are rest: base's stored
// messages and events, and, when d is not nil, the delta's after them,
// reading base's messages one at a time where the agent allows (see
// storage.Counter.StreamTally), else all at once.
func (s *Store) streamTally(ctx context.Context, base opened, rest map[string]any, stored int, d *storage.Delta, source string) (storage.Tally, error) {
	var elems []layout.Element
	var events, added []any
	if base.tree != nil {
		var err error
		if elems, _, err = s.reader.Elements(base.tree.Messages, nil); err != nil {
			return nil, err
		}
		if events, err = s.reader.Load(base.tree.Events); err != nil {
			return nil, err
		}
	}
	if len(elems) != stored {
		return nil, fmt.Errorf("snapshot %s holds %d messages, its header says %d", base.ID, len(elems), stored)
	}
	if d != nil {
		added, events = d.Messages, append(slices.Clip(events), d.Events...)
	}
	record := func(i int) (any, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i >= stored {
			return added[i-stored], nil
		}
		if elems[i].Index != i {
			return nil, fmt.Errorf("message %d is missing from snapshot %s", i, base.ID)
		}
		return s.reader.Parse(elems[i].Hash)
	}
	t, ok, err := s.counter.StreamTally(rest, stored+len(added), events, source, record)
	if ok || err != nil {
		return t, err
	}
	msgs := make([]any, stored+len(added))
	for i := range msgs {
		if msgs[i], err = record(i); err != nil {
			return nil, err
		}
	}
	doc := maps.Clone(rest)
	doc[snapshot.MemberMessages], doc[snapshot.MemberEvents] = msgs, events
	return s.counter.TallyOf(doc, source), nil
}

// readBack is rest as it reads back once stored.
func readBack(rest map[string]any) (map[string]any, error) {
	data, err := snapshot.Marshal(rest)
	if err != nil {
		return nil, err
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	return out, nil
}
