package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// PruneOptions say which snapshots of a session to keep; the others are
// taken out of its chain. A snapshot is kept when any rule keeps it.
type PruneOptions struct {
	KeepLast           int           // the newest N
	KeepFirst          bool          // the session's first
	KeepCheckpoints    bool          // every snapshot a checkpoint names or named
	KeepLatestPerLabel bool          // the newest of each label
	OlderThan          time.Duration // when set, snapshots newer than this are kept
	DryRun             bool
}

// PruneResult says what a prune kept and removed.
type PruneResult struct {
	Session string
	Kept    []storage. // oldest first, as they were
		Entry
	Removed []storage.Entry
	Renamed map[storage.ID]storage.ID // old id → new id of each kept snapshot
}

// Prune rewrites a session's chain to hold only the snapshots the rules
// keep, with the same content, headers and times; checkpoint tags move
// with their snapshots, and old ids keep resolving to the kept snapshots.
// It touches only the session's ref and its checkpoints: objects stay for
// git gc to collect.
func (s *Store) Prune(ctx context.Context, session string, o PruneOptions) (PruneResult, error) {
	if o.KeepLast <= 0 && o.OlderThan <= 0 {
		return PruneResult{}, &storage.OptionsError{Msg: "prune: say what to keep: --keep-last N or --older-than DURATION"}
	}
	ref := s.SessionRef(session)
	tip, err := s.refs.Read(ref)
	if err != nil {
		return PruneResult{}, err
	}
	if tip.IsZero() {
		return PruneResult{}, storage.NoSession(session)
	}
	chain, err := s.firstParentChain(ctx, tip)
	if err != nil {
		return PruneResult{}, err
	}
	cps, err := s.Checkpoints(ctx, session, true)
	if err != nil {
		return PruneResult{}, err
	}
	// A checkpoint may still name a snapshot an earlier prune rewrote
	// (that prune killed, or racing this one, before it moved its tags):
	// follow the notes of earlier prunes to the snapshot on this chain.
	onChain := make(map[storage.ID]bool, len(chain))
	for _, e := range chain {
		onChain[e.ID] = true
	}
	notes := s.prunedNotes()
	marked := map[storage.ID]bool{}
	at := make([]storage.ID, len(cps)) // each checkpoint's snapshot on this chain, or zero
	for i, cp := range cps {
		if at[i] = notes.follow(cp.Target, onChain); !at[i].IsZero() {
			marked[at[i]] = true
		}
	}
	res := PruneResult{Session: session, Renamed: map[storage.ID]storage.ID{}}
	now := s.opts.Now()
	keep := o.Select(chain, marked, now)
	for i, e := range chain {
		if keep[i] {
			res.Kept = append(res.Kept, e)
		} else {
			res.Removed = append(res.Removed, e)
		}
	}
	if o.DryRun {
		return res, nil
	}
	if len(res.Removed) == 0 {
		// Nothing to rewrite; put back any checkpoint an earlier prune
		// left on its old snapshot.
		return res, s.moveCheckpoints(ctx, session, cps, at, res.Renamed, nil)
	}
	shared, err := s.sharedTips(ctx, session, tip)
	if err != nil {
		return res, err
	}
	rule := pruneRecord{old: tip, opts: o, at: now}
	newTip, err := s.rewrite(ctx, storage.ID{}, res.Kept, res.Renamed, tip, shared, &rule)
	if err != nil {
		return res, err
	}
	// The notes go first: once the ref has moved, a checkpoint not yet
	// moved is found again through them, by a prune racing this one or
	// by the next one if this one is killed.
	if err := s.notePruned(res.Renamed); err != nil {
		return res, err
	}
	if err := s.refs.Update(ctx, ref, tip, newTip, "prune"); err != nil {
		if errors.Is(err, refs.ErrChanged) {
			return res, fmt.Errorf("session %s changed during the prune; nothing was changed, try again", session)
		}
		return res, err
	}
	s.dropTipState(ref)
	if s.killAt == "ref moved" {
		return res, errKilled
	}
	removed := make(map[storage.ID]bool, len(res.Removed))
	for _, e := range res.Removed {
		removed[e.ID] = true
	}
	return res, s.moveCheckpoints(ctx, session, cps, at, res.Renamed, removed)
}

// RetentionPolicy bounds the snapshots a session keeps as it grows: the
// newest MaxPerSession, those checkpoints name or named, and with
// KeepFirst the first. The zero value keeps everything.
type RetentionPolicy struct {
	MaxPerSession int  // 0 for no bound
	KeepFirst     bool // keep the session's first snapshot too
}

// Due reports whether a session whose newest snapshot is number seq is
// to be pruned: once it has grown a tenth past the maximum, so that not
// every save rewrites the chain.
func (p RetentionPolicy) Due(seq int) bool {
	return p.MaxPerSession > 0 && seq > p.MaxPerSession+p.MaxPerSession/10
}

// PruneOptions is the prune that brings a session back within p.
func (p RetentionPolicy) PruneOptions() PruneOptions {
	return PruneOptions{KeepLast: p.MaxPerSession, KeepFirst: p.KeepFirst, KeepCheckpoints: true}
}

// ApplyRetention prunes a session back to the policy's maximum when it is
// due (seq being the number of its newest snapshot, as a save returns
// it), and does nothing otherwise. Savers call it after each snapshot.
func (s *Store) ApplyRetention(ctx context.Context, session string, seq int, p RetentionPolicy) (PruneResult, error) {
	if !p.Due(seq) {
		return PruneResult{Session: session}, nil
	}
	res, err := s.Prune(ctx, session, p.PruneOptions())
	if err != nil {
		return res, fmt.Errorf("retention of session %s: %w", session, err)
	}
	return res, nil
}

// firstParentChain lists a session's snapshots along first parents,
// oldest first.
func (s *Store) firstParentChain(ctx context.Context, tip storage.ID) ([]storage.Entry, error) {
	var chain []storage.Entry
	for id := tip; !id.IsZero(); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := s.Entry(ctx, id)
		if err != nil {
			return nil, err
		}
		chain = append(chain, e)
		id = e.Parent
	}
	for l, r := 0, len(chain)-1; l < r; l, r = l+1, r-1 {
		chain[l], chain[r] = chain[r], chain[l]
	}
	return chain, nil
}

// Select says which snapshots of a chain the options keep: keep[i] is
// for chain[i], the chain oldest first as Prune reads it. marked holds
// the snapshots a checkpoint names or named; OlderThan counts back from
// now. It reads nothing, so that a caller can show a prune before it is
// made, and DryRun is left to Prune.
func (o PruneOptions) Select(chain []storage.Entry, marked map[storage.ID]bool, now time.Time) []bool {
	keep := make([]bool, len(chain))
	latest := map[string]int{}
	for i, e := range chain {
		latest[e.Header.Label] = i
	}
	for i, e := range chain {
		keep[i] = o.KeepLast > 0 && i >= len(chain)-o.KeepLast ||
			o.KeepFirst && i == 0 ||
			o.KeepCheckpoints && marked[e.ID] ||
			o.KeepLatestPerLabel && latest[e.Header.Label] == i ||
			o.OlderThan > 0 && now.Sub(e.Header.Time) < o.OlderThan ||
			i == len(chain)-1
	}
	return keep
}

// rewrite commits the kept snapshots again, each on the one before,
// starting on onto (zero for none), and returns the new tip, which names
// oldTip, shared and what oldTip superseded, and rule, the prune that
// made it, if it is one (see supersedesTrailers).
// Parents other than the first are kept: what a merge brought in stays
// reachable.
func (s *Store) rewrite(ctx context.Context, onto storage.ID, kept []storage.Entry, renamed map[storage.ID]storage.ID, oldTip storage.ID, shared []storage.ID, rule *pruneRecord) (storage.ID, error) {
	prev, seq := onto, 0
	if !onto.IsZero() {
		e, err := s.Entry(ctx, onto)
		if err != nil {
			return storage.ID{}, err
		}
		seq = e.Header.Seq
	}
	for i, e := range kept {
		c, err := s.st.commit(e.ID)
		if err != nil {
			return storage.ID{}, err
		}
		h := e.Header
		h.Seq = seq + i + 1
		msg := layout.CommitMessage(h) + trailerWas + ": " + e.ID.String() + "\n"
		if i == len(kept)-1 {
			sup, err := s.supersedesTrailers(ctx, oldTip, shared, rule)
			if err != nil {
				return storage.ID{}, err
			}
			msg += sup
		}
		var parents []storage.ID
		if !prev.IsZero() {
			parents = append(parents, prev)
		}
		if len(c.Parents) > 1 {
			parents = append(parents, c.Parents[1:]...)
		}
		// who made it and when are kept as they were written
		if prev, err = s.storeObject(gitobj.NewCommit(c.Tree, parents, c.Author, c.Committer, msg)); err != nil {
			return storage.ID{}, err
		}
		renamed[e.ID] = prev
	}
	return prev, nil
}

// errKilled ends a prune at Store.killAt, in tests.
var errKilled = errors.New("killed")

// trailerWas names the snapshot a pruned chain's commit was made from.
const trailerWas = "Snap-Was"

// moveCheckpoints points each checkpoint at its snapshot on the new
// chain: at[i] is where cps[i] stood on the old chain (zero when not on
// it), renamed maps the old chain to the new. A checkpoint whose
// snapshot this prune removed is dropped; one not on the old chain is
// left alone, never dropped. Each tag moves by compare-and-swap from the
// value read before the prune, so that one changed meanwhile (by another
// prune or by hand) is left as it is.
func (s *Store) moveCheckpoints(ctx context.Context, session string, cps []storage.Checkpoint, at []storage.ID, renamed map[storage.ID]storage.ID, removed map[storage.ID]bool) error {
	for i, cp := range cps {
		if at[i].IsZero() {
			continue
		}
		if removed[at[i]] {
			if err := s.refs.Update(ctx, cp.Ref, cp.Tag, storage.ID{}, "prune: checkpoint removed"); err != nil && !errors.Is(err, refs.ErrChanged) {
				return err
			}
			continue
		}
		to, ok := renamed[at[i]]
		if !ok {
			to = at[i]
		}
		if to == cp.Target {
			continue
		}
		tagger, msg := s.identity(s.opts.Now()), cp.Message+"\n"
		if old, err := s.st.tag(cp.Tag); err == nil {
			tagger, msg = old.Tagger, old.Message
		}
		id, err := s.storeObject(gitobj.NewTag("snap/"+session+"/"+cp.Name, to, tagger, msg))
		if err != nil {
			return err
		}
		if err := s.refs.Update(ctx, cp.Ref, cp.Tag, id, "prune: checkpoint moved"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
	}
	return nil
}

func (s *Store) prunedPath() string { return filepath.Join(s.paths.CommonDir, "snap", "pruned") }

// notePruned appends old → new ids, so that an id copied before a prune
// still resolves (also after git gc has removed the old commit).
func (s *Store) notePruned(renamed map[storage.ID]storage.ID) error {
	var b bytes.Buffer
	for old, nu := range renamed {
		if old != nu {
			fmt.Fprintf(&b, "%s %s\n", old, nu)
		}
	}
	if err := os.MkdirAll(filepath.Dir(s.prunedPath()), 0o777); err != nil {
		return err
	}
	f, err := safefile.OpenAppend(s.prunedPath(), 0o666) // a FIFO there would block the prune
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// prunedNoteSet is what the notes of earlier prunes say: each old id
// with the ids it was rewritten to, in the order noted (a prune that
// lost its race leaves a note too, naming commits no ref holds).
type prunedNoteSet map[storage.ID][]storage.ID

func (s *Store) prunedNotes() prunedNoteSet {
	data, err := safefile.ReadFile(context.Background(), s.prunedPath(), "", maxCacheBytes)
	if err != nil {
		return nil // none, or not a file git-snap reads: no notes
	}
	m := prunedNoteSet{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		old, nu, ok := strings.Cut(sc.Text(), " ")
		if ok && storage.IsID(old) && storage.IsID(nu) {
			o := storage.NewID(old)
			m[o] = append(m[o], storage.NewID(nu))
		}
	}
	return m
}

// follow returns id itself when want holds it, else the id some chain of
// notes leads to from id that want holds, else zero.
func (m prunedNoteSet) follow(id storage.ID, want map[storage.ID]bool) storage.ID {
	seen := map[storage.ID]bool{}
	for queue := []storage.ID{id}; len(queue) > 0; queue = queue[1:] {
		h := queue[0]
		if want[h] {
			return h
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		queue = append(queue, m[h]...)
	}
	return storage.ID{}
}

// pruned follows old ids to the ids their snapshots have now. A prefix
// matches an old id that is the only one starting with it; of the ids
// it was rewritten to, the last noted that still exists is taken.
func (s *Store) pruned(prefix string) (storage.ID, bool) {
	m := s.prunedNotes()
	var found storage.ID
	for old := range m {
		if strings.HasPrefix(old.String(), prefix) {
			if !found.IsZero() && found != old {
				return storage.ID{}, false
			}
			found = old
		}
	}
	if found.IsZero() {
		return storage.ID{}, false
	}
	for seen := 0; seen < 100; seen++ { // pruned again since: follow on
		next := m[found]
		if len(next) == 0 {
			break
		}
		pick := next[len(next)-1]
		for i := len(next) - 1; i >= 0; i-- {
			if s.st.HasEncodedObject(next[i]) == nil {
				pick = next[i]
				break
			}
		}
		found = pick
	}
	return found, true
}

// staleTempAge is how old a temporary file must be to be taken as left
// by a killed writer; git gc waits as long for its own.
const staleTempAge = time.Hour

// removeStaleTemp removes the temporary files of object and pack writes
// (tmp_obj_*, tmp_pack_*, tmp_idx_*, a Batch's tmp_snap_pack_*) and of ref locks (snap/locks/)
// last changed before cutoff: a save or import killed mid-write leaves
// them, and no writer keeps one open that long.
func (s *Store) removeStaleTemp(cutoff time.Time) {
	s.eachStaleTemp(cutoff, func(path string) {
		_ = os.Remove(path) // gone already is as good
	})
}

// eachStaleTemp calls fn with each temporary file removeStaleTemp removes.
func (s *Store) eachStaleTemp(cutoff time.Time, fn func(path string)) {
	objects := filepath.Join(s.paths.CommonDir, "objects")
	dirs := []string{objects, filepath.Join(objects, "pack"), filepath.Join(s.paths.CommonDir, "snap", "locks")}
	if ents, err := os.ReadDir(objects); err == nil {
		for _, e := range ents {
			if e.IsDir() && len(e.Name()) == 2 && isHex(e.Name()) {
				dirs = append(dirs, filepath.Join(objects, e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		locks := filepath.Base(dir) == "locks"
		for _, e := range ents {
			name := e.Name()
			temp := locks || strings.HasPrefix(name, "tmp_obj_") || strings.HasPrefix(name, "tmp_pack_") || strings.HasPrefix(name, "tmp_idx_") || strings.HasPrefix(name, batchTempPrefix)
			if !temp || e.IsDir() {
				continue
			}
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
				fn(filepath.Join(dir, name))
			}
		}
	}
}
