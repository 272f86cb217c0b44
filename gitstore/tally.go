package gitstore

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/snapshot"
)

// A session's tally (agent.Tally) is kept under .git/snap/cache/tally/,
// one file per session ref, for the snapshot at its tip: the next append
// goes on counting from it with the records it adds, and writes its
// totals without reading what the session held. The file is never
// trusted: it names the commit it counts, its checksum must hold, and
// its totals must be those the commit's trailers say; else the tip's
// document is counted once, and the file written anew.

// tallyMagic starts a tally cache file.
const tallyMagic = "git-snap tally cache 1"

func (s *Store) tallyPath(ref string) string {
	return filepath.Join(s.paths.CommonDir, "snap", "cache", "tally", strings.ReplaceAll(ref, "/", "%"))
}

// cachedTally reads the tally of tip, the snapshot e of the session at
// ref, when the cache holds it and it holds for e; nil otherwise.
func (s *Store) cachedTally(ref string, e Entry) *agent.Tally {
	if !e.Header.Counted {
		return nil
	}
	data, err := safefile.ReadFile(context.Background(), s.tallyPath(ref), "", maxCacheBytes)
	if err != nil {
		return nil
	}
	if data, err = checkSummed(data); err != nil {
		return nil
	}
	head := tallyMagic + "\n" + e.ID.String() + "\n"
	if !bytes.HasPrefix(data, []byte(head)) {
		return nil
	}
	t, err := agent.UnmarshalTally(data[len(head):])
	if err != nil || t.Source() != e.Header.Source || !sameTotals(t.Totals(), e.Header.Totals) {
		return nil
	}
	return t
}

// saveTally keeps the tally of the snapshot id at the tip of ref.
// Failing to is harmless: the next append counts the document once.
func (s *Store) saveTally(ref string, id plumbing.Hash, state []byte) {
	var b bytes.Buffer
	b.WriteString(tallyMagic + "\n" + id.String() + "\n")
	b.Write(state)
	writeFileAtomic(s.tallyPath(ref), withSum(b.Bytes()))
}

func (s *Store) dropTally(ref string) { os.Remove(s.tallyPath(ref)) }

// sameTotals compares totals as a commit's trailers write them.
func sameTotals(a, b snapshot.Totals) bool {
	ha := snapshot.Header{Session: "s", Counted: true, Totals: a}
	hb := ha
	hb.Totals = b
	return layout.CommitMessage(ha) == layout.CommitMessage(hb)
}

// countDocument counts a whole document: its totals, and, when the store
// keeps tallies, the state to keep for the snapshot it is.
func (s *Store) countDocument(doc map[string]any, source string) (snapshot.Totals, []byte) {
	if !s.tallies {
		return s.count(doc, source), nil
	}
	t := agent.TallyOf(doc, source)
	return t.Totals(), t.Marshal()
}

// appendTotals counts the snapshot an append makes on tip (base, opened,
// at ref): the tip's tally, from the cache or counted from its document
// once, goes on with what the delta adds when it appends live records;
// else the new document is counted whole. rest is the new snapshot's
// members other than messages, events and files.
func (s *Store) appendTotals(ctx context.Context, ref string, tip plumbing.Hash, base opened, source string, d Delta, rest map[string]any) (snapshot.Totals, []byte, error) {
	// The members as the snapshot will read back: a writer's Go values
	// (an int where a read gives a snapshot.Number) read as those do.
	rest, err := readBack(rest)
	if err != nil {
		return snapshot.Totals{}, nil, err
	}
	var t *agent.Tally
	var parent *snapshot.Parts // read when needed
	switch {
	case !s.tallies:
	case tip.IsZero():
		t = agent.NewTally(source)
	default:
		if t = s.cachedTally(ref, base.Entry); t == nil {
			p, err := s.parentParts(base)
			if err != nil {
				return snapshot.Totals{}, nil, err
			}
			parent = p
			t = agent.TallyOf(p.Join(), source)
		}
	}
	if t != nil && t.Append(base.rest, base.Header.Messages, rest, d.Messages, d.Events) {
		return t.Totals(), t.Marshal(), nil
	}
	if parent == nil {
		p, err := s.parentParts(base)
		if err != nil {
			return snapshot.Totals{}, nil, err
		}
		parent = p
	}
	doc := maps.Clone(rest)
	doc[snapshot.MemberMessages] = append(slices.Clip(parent.Messages), d.Messages...)
	doc[snapshot.MemberEvents] = append(slices.Clip(parent.Events), d.Events...)
	totals, state := s.countDocument(doc, source)
	return totals, state, nil
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

// parentParts reads the messages and events an opened snapshot holds
// (none for a new session's empty base), not its files: counting needs
// the records.
func (s *Store) parentParts(base opened) (*snapshot.Parts, error) {
	p := &snapshot.Parts{Rest: base.rest}
	if base.tree == nil {
		return p, nil
	}
	var err error
	if p.Messages, err = s.reader.Load(base.tree.Messages); err != nil {
		return nil, err
	}
	if p.Events, err = s.reader.Load(base.tree.Events); err != nil {
		return nil, err
	}
	return p, nil
}
