package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
)

// What Pull did to a session.
const (
	PullCreated     = "created"
	PullFastForward = "fast-forward"
	PullUpToDate    = "up to date"
	PullAhead       = "ahead" // the local session has all the remote's and more
	PullMerged      = "merged"
	// PullReplaced: the remote's history was pruned, and the local
	// session had nothing it did not replace.
	PullReplaced = "replaced by the remote's pruned history"
	// PullReplayed: the local snapshots made after the history the
	// remote pruned were committed again on top of the remote's.
	PullReplayed = "replayed onto the remote's pruned history"
	// PullKeptApart: the session's name differs only in case from a
	// local session's, which this file system takes as the same name;
	// the local session was left alone, and the remote's is where the
	// fetch put it.
	PullKeptApart = "not pulled"
)

// PullResult says what Pull did to one session.
type PullResult struct {
	Session string
	Action  string
	Result  storage.ID // the session's tip afterwards
	// Conflicts are JSON paths both sides changed differently since they
	// parted; the local value was kept, and the remote's stays in history.
	Conflicts []string
	// Note says more the user should know: a session whose name differs
	// from another's only in case, and how to rename one.
	Note string
}

// Pull fetches a remote's sessions and brings each into the local one:
// a new session is created, one behind is fast-forwarded, and one that
// diverged gets a merge snapshot whose parents are both tips, so that
// neither side is ever lost. Checkpoints the remote has and this
// repository does not are added.
func (s *Store) Pull(ctx context.Context, o RemoteOptions) ([]PullResult, error) {
	if err := s.checkSessions(o.Sessions); err != nil {
		return nil, err
	}
	before, err := s.fetchForPull(ctx, o)
	if err != nil {
		return nil, err
	}
	refs, err := s.remoteRefs(o)
	if err != nil {
		return nil, err
	}
	local, err := s.localRefs()
	if err != nil {
		return nil, err
	}
	out, refs := s.upToDate(refs, local) // most sessions of a large remote
	incoming, err := s.incomingRefs(ctx, "remote "+o.remote(), refs, local)
	if err != nil {
		return nil, err
	}
	track := s.sharedNamespaces(o.remote())[0].tracking
	rewritten := map[string]bool{} // sessions that took the remote's pruned history
	for _, in := range incoming {
		if in.tag != "" {
			continue // once every session is in: see below
		}
		r, err := s.pullSession(ctx, o.remote(), in, before[track+in.session])
		if err != nil {
			return out, err
		}
		rewritten[in.session] = r.Action == PullReplaced || r.Action == PullReplayed
		out = append(out, r)
	}
	s.noteCaseTwins(o.remote(), local, out)
	for _, in := range incoming {
		if in.tag == "" || local[in.tag] == in.tagHash {
			continue
		}
		if err := s.pullTag(ctx, in.tag, in.tagHash, rewritten); err != nil {
			return out, err
		}
	}
	return out, nil
}

// fetchForPull fetches, and returns where the remote-tracking refs of
// sessions were before: from a remote of shards, those of the sessions
// the fetch moved; from one of a ref per session, which git fetch
// moves, all of them, read first.
func (s *Store) fetchForPull(ctx context.Context, o RemoteOptions) (before map[string]storage.ID, err error) {
	err = s.holdRemote(ctx, o.remote(), func() error {
		layout, err := s.remoteLayout(o.remote())
		if err != nil {
			return err
		}
		if layout != layoutShards {
			if before, err = s.refs.List(s.sharedNamespaces(o.remote())[0].tracking); err != nil {
				return err
			}
		}
		moved, err := s.fetch(ctx, o)
		if before == nil {
			before = moved
		}
		return err
	})
	return before, err
}

// upToDate takes out of refs (a remote's, as remoteRefs lists them) the
// sessions the local ones are at already, and says they are up to date.
func (s *Store) upToDate(refs []BundleRef, local map[string]storage.ID) ([]PullResult, []BundleRef) {
	var out []PullResult
	rest := refs[:0:0]
	for _, r := range refs {
		if session, ok := s.sessionOfRef(r.Name); ok && local[r.Name] == r.Hash {
			out = append(out, PullResult{Session: session, Action: PullUpToDate, Result: r.Hash})
			continue
		}
		rest = append(rest, r)
	}
	return out, rest
}

// pullSession integrates one session fetched from remote, whose
// remote-tracking ref held before when the pull began.
func (s *Store) pullSession(ctx context.Context, remote string, in incomingRef, before storage.ID) (PullResult, error) {
	track := s.sharedNamespaces(remote)[0].tracking + in.session
	had, err := s.refs.LoggedIDs(track)
	if err != nil {
		return PullResult{}, err
	}
	if !before.IsZero() {
		had = append(had, before)
	}
	r, err := s.integrate(ctx, in.session, in.target, "pull "+remote, had)
	if err != nil {
		return r, fmt.Errorf("pull %s: %w", in.session, err)
	}
	if r.Action == PullKeptApart {
		r.Note += fmt.Sprintf("; it is at %s; rename it on a clone that keeps both: %s", "refs/remotes/"+trackingName(remote)+"/snap/"+in.session, s.renameHint(remote, in.session))
	}
	return r, nil
}

// pullTag adopts a checkpoint of the remote's: a new one is created; one
// of a session that took the remote's pruned history moves where the
// prune moved it; any other the local repository has is kept.
func (s *Store) pullTag(ctx context.Context, ref string, tag storage.ID, rewritten map[string]bool) error {
	session, name, _ := checkpointOfRef(ref)
	if rewritten[session] {
		ref, cur, err := s.findCheckpoint(session, name)
		if err != nil || cur == tag {
			return err
		}
		if err := s.refs.Update(ctx, ref, cur, tag, "pull: checkpoint moved by a prune"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
		return nil
	}
	return s.adoptTag(ctx, ref, tag)
}

// remoteRefs lists what Fetch brought, as the refs it stands for here:
// the sessions asked for and every checkpoint.
func (s *Store) remoteRefs(o RemoteOptions) ([]BundleRef, error) {
	var out []BundleRef
	for _, ns := range s.sharedNamespaces(o.remote()) {
		refs, err := s.refs.List(ns.tracking)
		if err != nil {
			return nil, err
		}
		for ref, h := range refs {
			name := strings.TrimPrefix(ref, ns.tracking)
			if ns.local == s.prefix && len(o.Sessions) > 0 && !contains(o.Sessions, name) {
				continue
			}
			out = append(out, BundleRef{ns.local + name, h})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// adoptTag creates a checkpoint tag another clone made, unless the name
// is taken here (in either place checkpoints are read from): the local
// one is kept.
func (s *Store) adoptTag(ctx context.Context, ref string, tag storage.ID) error {
	if session, name, ok := checkpointOfRef(ref); ok {
		if _, cur, err := s.findCheckpoint(session, name); err != nil || !cur.IsZero() {
			return err
		}
	}
	if err := s.refs.Update(ctx, ref, storage.ID{}, tag, "pull: checkpoint"); err != nil && !errors.Is(err, refs.ErrChanged) {
		return err
	}
	return nil
}

// Integrate brings a snapshot (another clone's tip of a session) into
// the local session, as Pull does, once its history is checked to be
// complete snapshots.
func (s *Store) Integrate(ctx context.Context, session string, remote storage.ID, label string) (PullResult, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return PullResult{}, &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	if err := s.verifyIncoming(ctx, "snapshot "+remote.String(), RevRange{Include: []storage.ID{remote}}, map[storage.ID]bool{}); err != nil {
		return PullResult{}, err
	}
	return s.integrate(ctx, session, remote, label, nil)
}

// integrate is Integrate for a session and snapshot already checked.
// had are the tips of the session the source was seen at before (a
// remote's, as fetched; none for a bundle): a pruned history may drop
// or rewrite only local snapshots the source had (see mayReplace).
func (s *Store) integrate(ctx context.Context, session string, remote storage.ID, label string, had []storage.ID) (PullResult, error) {
	ref := s.SessionRef(session)
	for {
		local, err := s.refs.Read(ref)
		if err != nil {
			return PullResult{}, err
		}
		if r, apart, err := s.keptApart(ctx, session, local, remote); apart || err != nil {
			return r, err
		}
		r, err := s.integrateOnto(ctx, session, local, remote, label, had)
		if errors.Is(err, refs.ErrChanged) {
			continue // the local session moved meanwhile: look again
		}
		if err == nil && r.Result != local && r.Action != PullMerged {
			s.dropTipState(ref)
		}
		return r, err
	}
}

// keptApart leaves a local session alone when its tip, found under the
// name of the session coming in, is another session's, one whose name
// differs only in case: a file system that ignores case read that one's
// ref file. Joining them would merge two sessions into one.
func (s *Store) keptApart(ctx context.Context, session string, local, remote storage.ID) (PullResult, bool, error) {
	if local.IsZero() || local == remote {
		return PullResult{}, false, nil
	}
	e, err := s.Entry(ctx, local)
	if err != nil || e.Header.Session == session || !strings.EqualFold(e.Header.Session, session) {
		return PullResult{}, false, err
	}
	return PullResult{Session: session, Action: PullKeptApart, Result: local,
		Note: fmt.Sprintf("its name differs from local session %s's only in case, which this file system takes as the same name", e.Header.Session)}, true, nil
}

// noteCaseTwins notes, on each result of a session whose name differs
// from another local session's only in case, how to rename one: the
// clone keeps both, but on macOS and Windows they would be one. local
// are the refs as the pull found them (localRefs), to which it added
// only the sessions it created.
func (s *Store) noteCaseTwins(remote string, local map[string]storage.ID, results []PullResult) {
	created := map[string]bool{} // by the name in lower case
	var names []string
	for _, r := range results {
		if r.Action == PullCreated && local[s.prefix+r.Session].IsZero() {
			created[strings.ToLower(r.Session)] = true
			names = append(names, r.Session)
		}
	}
	if len(names) == 0 {
		return // twins come with a new session
	}
	for ref := range local {
		if name, ok := s.sessionOfRef(ref); ok && created[strings.ToLower(name)] {
			names = append(names, name)
		}
	}
	twins := CaseGroups(names)
	of := map[string][]string{}
	for _, g := range twins {
		for _, n := range g {
			of[n] = g
		}
	}
	for i, r := range results {
		if g := of[r.Session]; g != nil && r.Action != PullKeptApart {
			results[i].Note = fmt.Sprintf("sessions %s differ only in case, which macOS and Windows take as the same name: both are kept here; rename one, then push it: %s", strings.Join(g, " and "), s.renameHint(remote, r.Session))
		}
	}
}

// integrateOnto brings remote into the session whose tip is local: it
// creates or fast-forwards it, takes a pruned history, or merges.
func (s *Store) integrateOnto(ctx context.Context, session string, local, remote storage.ID, label string, had []storage.ID) (PullResult, error) {
	ref := s.SessionRef(session)
	r := PullResult{Session: session, Result: local}
	if local == remote {
		r.Action = PullUpToDate
		return r, nil
	}
	behind := local.IsZero()
	if !behind {
		var err error
		if behind, err = s.isAncestor(ctx, local, remote); err != nil { // the usual case, found in a step or two
			return r, err
		}
	}
	if behind {
		r.Action, r.Result = PullFastForward, remote
		if local.IsZero() {
			r.Action = PullCreated
		}
		return r, s.refs.Update(ctx, ref, local, remote, "pull: fast-forward")
	}
	if done, err := s.integratePruned(ctx, session, local, remote, had, &r); done || err != nil {
		return r, err
	}
	base, err := s.mergeBase(ctx, local, remote)
	if err != nil {
		return r, err
	}
	if base == remote {
		r.Action = PullAhead
		return r, nil
	}
	r.Action = PullMerged
	r.Result, r.Conflicts, err = s.merge(ctx, ref, base, local, remote, label)
	return r, err
}

// integratePruned handles the sessions a prune rewrote on one side
// (docs/design.md §5): when the local history replaced the remote's, the
// local one is ahead; when the remote's replaced the local one, it is
// taken, and local snapshots made after what it replaced are committed
// again on top of it. Either way the history taking the other's place
// must account for every snapshot it leaves out (accounts), whatever
// its Snap-Supersedes trailers claim, and it may leave out only local
// snapshots the source had before (mayReplace): a local session's own
// snapshots never leave its first-parent history for a claim from
// outside. done is false when neither history replaced the other, for a
// merge to join them: nothing is lost.
func (s *Store) integratePruned(ctx context.Context, session string, local, remote storage.ID, had []storage.ID, r *PullResult) (done bool, err error) {
	ref := s.SessionRef(session)
	if ok, err := s.replaces(ctx, session, local, remote); ok || err != nil {
		r.Action = PullAhead
		return ok, err
	}
	if ok, err := s.replaces(ctx, session, remote, local); ok || err != nil {
		if err != nil {
			return false, err
		}
		if ok, err := s.mayReplace(ctx, local, remote, had); !ok || err != nil {
			return false, err
		}
		r.Action, r.Result = PullReplaced, remote
		return true, s.refs.Update(ctx, ref, local, remote, "pull: the remote's pruned history")
	}
	base, after, err := s.replayBase(ctx, local, remote)
	if err != nil || base.IsZero() {
		return false, err
	}
	if ok, err := s.accounts(ctx, session, remote, base); !ok || err != nil {
		return false, err
	}
	if ok, err := s.mayReplace(ctx, base, remote, had); !ok || err != nil {
		return false, err
	}
	renamed := map[storage.ID]storage.ID{}
	tip, err := s.rewrite(ctx, remote, after, renamed, local, nil, nil)
	if err != nil {
		return false, err
	}
	if err := s.notePruned(renamed); err != nil {
		return false, err
	}
	r.Action, r.Result = PullReplayed, tip
	if err := s.refs.Update(ctx, ref, local, tip, "pull: replayed onto the remote's pruned history"); err != nil {
		return true, err
	}
	cps, err := s.Checkpoints(ctx, session, true)
	if err != nil {
		return true, err
	}
	at := make([]storage.ID, len(cps))
	for i, cp := range cps {
		at[i] = cp.Target
	}
	return true, s.moveCheckpoints(ctx, session, cps, at, renamed, nil)
}

// mayReplace reports whether remote's history may take the place of
// old's: every snapshot of old's history that remote's leaves out was
// the source's before (it reaches one of had). A prune recorded on a
// remote's history is checked against this clone's copy of the chain
// (accounts), but anyone who can write to the remote, or hands over a
// bundle, can write that record and copy trees they hold: only what the
// source had can it take back. A bundle (no had) replaces nothing.
func (s *Store) mayReplace(ctx context.Context, old, remote storage.ID, had []storage.ID) (bool, error) {
	exclude := append([]storage.ID{remote}, had...)
	var own bool
	err := s.WalkRange(ctx, RevRange{Include: []storage.ID{old}, Exclude: exclude}, func(storage.Entry) error {
		own = true
		return storage.ErrStop
	})
	return !own, err
}

// replaces reports whether the history of tip takes old's place: tip's
// chain says it supersedes old (covers), and it accounts for every
// snapshot of old's history it leaves out.
func (s *Store) replaces(ctx context.Context, session string, tip, old storage.ID) (bool, error) {
	if ok, err := s.covers(ctx, tip, old); !ok || err != nil {
		return false, err
	}
	return s.accounts(ctx, session, tip, old)
}

// isAncestor reports whether anc is desc or comes before it, walking back
// from desc only as far as it must.
func (s *Store) isAncestor(ctx context.Context, anc, desc storage.ID) (bool, error) {
	found := false
	err := s.Walk(ctx, []storage.ID{desc}, func(e storage.Entry) error {
		if e.ID == anc {
			found = true
			return storage.ErrStop
		}
		return nil
	})
	return found, err
}

// ancestors lists every snapshot reachable from id, id included.
func (s *Store) ancestors(ctx context.Context, id storage.ID) (map[storage.ID]bool, error) {
	seen := map[storage.ID]bool{}
	err := s.Walk(ctx, []storage.ID{id}, func(e storage.Entry) error {
		seen[e.ID] = true
		return nil
	})
	return seen, err
}

// mergeBase finds the newest snapshot both a and b descend from, or
// ZeroHash when they share none.
func (s *Store) mergeBase(ctx context.Context, a, b storage.ID) (storage.ID, error) {
	inA, err := s.ancestors(ctx, a)
	if err != nil {
		return storage.ID{}, err
	}
	var base storage.ID
	err = s.Walk(ctx, []storage.ID{b}, func(e storage.Entry) error {
		if inA[e.ID] {
			base = e.ID
			return storage.ErrStop
		}
		return nil
	})
	return base, err
}

// merge writes a snapshot uniting local and remote, with both as parents.
func (s *Store) merge(ctx context.Context, ref string, base, local, remote storage.ID, label string) (storage.ID, []string, error) {
	dl, el, err := s.Read(ctx, local)
	if err != nil {
		return storage.ID{}, nil, err
	}
	dr, er, err := s.Read(ctx, remote)
	if err != nil {
		return storage.ID{}, nil, err
	}
	db := map[string]any{}
	if !base.IsZero() {
		if db, _, err = s.Read(ctx, base); err != nil {
			return storage.ID{}, nil, err
		}
	}
	merged, conflicts := snapshot.MergeDocuments(db, dl, dr, s.view)
	h, objs, tally, err := s.prepare(merged, storage.SaveOptions{Session: el.Header.Session, Label: label, Source: "pull", Time: s.opts.Now()})
	if err != nil {
		return storage.ID{}, nil, err
	}
	tip, _ := s.tipState(ref, local)
	if err := s.writeObjects(objs, tip.known); err != nil {
		return storage.ID{}, nil, err
	}
	h.Seq = max(el.Header.Seq, er.Header.Seq) + 1
	h.Started = el.Header.Started
	if er.Header.Started.Before(h.Started) {
		h.Started = er.Header.Started
	}
	id, err := s.writeCommit(objs[len(objs)-1].Hash, h, local, remote)
	if err != nil {
		return storage.ID{}, nil, err
	}
	if err := s.refs.Update(ctx, ref, local, id, "pull: merge"); err != nil {
		return storage.ID{}, nil, err
	}
	s.saveTipState(ref, tipState{commit: id, seq: h.Seq, started: h.Started}, objs, nil, nil)
	if tally != nil {
		s.saveTally(ref, id, tally)
	}
	return id, conflicts, nil
}
