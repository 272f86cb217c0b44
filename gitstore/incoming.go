package gitstore

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// What comes from another repository (a bundle, a remote) is checked here
// before any ref moves: its ref names must be names git-snap itself
// writes, so that no `..` or stray slash can reach a ref outside
// refs/snap/ or a file outside the repository, and every object its tips
// reach must be here and be a snapshot, so that a missing object cannot
// break git gc and push for the whole repository later.

// IncomingError means a ref or object from another repository cannot be
// taken in as it is. Nothing was changed.
type IncomingError struct {
	Source string // "bundle", "remote origin"
	Msg    string
}

// Error names the source and the problem.
func (e *IncomingError) Error() string { return e.Source + ": " + e.Msg }

// UserError marks the error as the user's to act on: the input is bad.
func (e *IncomingError) UserError() {}

// sessionOfRef reads the session a session ref from elsewhere names.
func (s *Store) sessionOfRef(ref string) (string, bool) {
	name, ok := strings.CutPrefix(ref, s.prefix)
	return name, ok && snapshot.CheckName("session", name) == nil
}

// verifyIncoming checks that every snapshot and object r selects is
// here, that every commit is a snapshot and every tree holds only what a
// snapshot may hold. seen carries what was already checked, so that tips
// sharing history are read once.
func (s *Store) verifyIncoming(ctx context.Context, source string, r RevRange, seen map[storage.ID]bool) error {
	err := s.WalkRange(ctx, r, func(e storage.Entry) error {
		if seen[e.ID] {
			return nil
		}
		seen[e.ID] = true
		if _, err := s.reader.Open(e.Tree); err != nil {
			return err
		}
		return s.verifyTree(e.Tree, seen)
	})
	if err != nil {
		return &IncomingError{source, fmt.Sprintf("its history is not complete git-snap snapshots: %v", err)}
	}
	return nil
}

// verifyTree checks that a tree and everything below it is here.
func (s *Store) verifyTree(h storage.ID, seen map[storage.ID]bool) error {
	if seen[h] {
		return nil
	}
	seen[h] = true
	t, err := s.st.tree(h)
	if err != nil {
		return fmt.Errorf("tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		switch {
		case e.Mode == filemode.Dir:
			err = s.verifyTree(e.Hash, seen)
		case e.Mode == filemode.Submodule:
			err = fmt.Errorf("tree %s holds a submodule, %s, which no snapshot holds", h, e.Name)
		case !seen[e.Hash]:
			seen[e.Hash] = true
			_, err = s.st.EncodedObject(plumbing.BlobObject, e.Hash)
			if err != nil {
				err = fmt.Errorf("blob %s (%s): %w", e.Hash, e.Name, err)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// incomingRef is a ref from elsewhere, checked: a session to integrate,
// or a checkpoint tag to adopt and the session its snapshot joins.
type incomingRef struct {
	session string
	target  storage.ID // a snapshot
	tag     string     // the checkpoint's ref, for a checkpoint
	tagHash storage.ID
}

// incomingRefs checks refs from a bundle or a remote, names and history,
// all of them before any ref moves. local are the refs this repository
// holds (localRefs), whose history was checked as it came in or was
// written here: only what a ref brings beyond its session's local
// history is read, so that a pull from a remote of many sessions reads
// the few that moved, not every one. A ref whose history was rewritten
// shares little with the local one, and is read for all it brings.
func (s *Store) incomingRefs(ctx context.Context, source string, refs []BundleRef, local map[string]storage.ID) ([]incomingRef, error) {
	var out []incomingRef
	var r RevRange
	for _, ref := range refs {
		in, err := s.incomingRef(ref)
		if err != nil {
			return nil, &IncomingError{source, err.Error()}
		}
		out = append(out, in)
		if !s.holds(in, local) {
			r.Include = append(r.Include, in.target)
			r.Exclude = append(r.Exclude, local[s.prefix+in.session])
		}
	}
	if len(r.Include) == 0 {
		return out, nil
	}
	if err := s.verifyIncoming(ctx, source, r, map[storage.ID]bool{}); err != nil {
		return nil, err
	}
	if err := s.verifyHeaders(ctx, source, r); err != nil {
		return nil, err
	}
	return out, nil
}

// localRefs lists the refs whose history this repository has checked
// or written: every session's tip and checkpoint's tag, by ref name.
func (s *Store) localRefs() (map[string]storage.ID, error) {
	out, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	for _, p := range s.checkpointPrefixes() {
		refs, err := s.refs.List(p)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, refs)
	}
	return out, nil
}

// holds reports whether a local ref (of localRefs) holds what in names
// already: its session at that tip, or its checkpoint as that tag, in
// either place.
func (s *Store) holds(in incomingRef, local map[string]storage.ID) bool {
	if in.tag == "" {
		return local[s.prefix+in.session] == in.target
	}
	_, name, _ := checkpointOfRef(in.tag)
	for _, p := range s.checkpointPrefixes() {
		if local[p+in.session+"/"+name] == in.tagHash {
			return true
		}
	}
	return false
}

// verifyHeaders checks the header trailers of every snapshot r selects
// (what incoming refs bring that their sessions do not hold yet) against
// what they describe, before anything reads them: stats and sessions
// take a counted snapshot's totals from its trailers and never read its
// document again, and a walk orders history by sequence number. So a
// sequence number must be one past its parents' highest (1 for a first
// snapshot), as every writer numbers them, and a counted snapshot's
// totals and counts must be what its document gives when counted here.
func (s *Store) verifyHeaders(ctx context.Context, source string, r RevRange) error {
	seqs := map[storage.ID]int{}
	return s.WalkRange(ctx, r, func(e storage.Entry) error {
		if msg := s.headerProblem(ctx, e, seqs); msg != "" {
			return &IncomingError{source, fmt.Sprintf("snapshot %s of session %s %s; it was not written by git-snap as it is, and nothing was changed", e.ID, e.Header.Session, msg)}
		}
		return nil
	})
}

// headerProblem says what is wrong with an incoming snapshot's header,
// or "" when nothing is. seqs remembers parents' numbers already read.
func (s *Store) headerProblem(ctx context.Context, e storage.Entry, seqs map[storage.ID]int) string {
	// Writers number a snapshot one past its first parent (a save, a
	// prune's or replay's copy, which keeps a merge's other parents as
	// they were), one past its highest parent (a merge), or 1 (a
	// session's first, also a pruned chain's first, which may keep a
	// merge's other parents).
	want, first := 1, 0
	for i, p := range append([]storage.ID{e.Parent}, e.Merged...) {
		if p.IsZero() {
			continue
		}
		n, ok := seqs[p]
		if !ok {
			pe, err := s.Entry(ctx, p)
			if err != nil {
				return fmt.Sprintf("has a parent that does not read (%v)", err)
			}
			n = pe.Header.Seq
			seqs[p] = n
		}
		if i == 0 {
			first = n + 1
		}
		want = max(want, n+1)
	}
	seqs[e.ID] = e.Header.Seq
	if seq := e.Header.Seq; seq != want && seq != first && seq != 1 {
		return fmt.Sprintf("is numbered #%d, but its parents make it #%d", seq, want)
	}
	if !e.Header.Counted || s.counter == nil {
		return ""
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		return fmt.Sprintf("does not read (%v)", err)
	}
	counted := e.Header
	counted.Totals = s.counter.TallyOf(doc, e.Header.Source).Totals()
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	files, _ := doc[snapshot.MemberFiles].(map[string]any)
	counted.Messages, counted.Events, counted.Files = len(msgs), len(events), len(files)
	if layout.CommitMessage(counted) != layout.CommitMessage(e.Header) {
		return "has header trailers (totals or counts) its document does not give"
	}
	return ""
}

func (s *Store) incomingRef(ref BundleRef) (incomingRef, error) {
	if session, ok := s.sessionOfRef(ref.Name); ok {
		return incomingRef{session: session, target: ref.Hash}, nil
	}
	session, name, ok := checkpointOfRef(ref.Name)
	if !ok {
		return incomingRef{}, fmt.Errorf("%q is not a git-snap session or checkpoint name; nothing was changed", ref.Name)
	}
	target, err := s.peel(ref.Hash)
	if err != nil {
		return incomingRef{}, fmt.Errorf("checkpoint %s: %w", ref.Name, err)
	}
	// Adopted where checkpoints are written here, from either place there.
	return incomingRef{session: session, target: target, tag: s.checkpointRef(session, name), tagHash: ref.Hash}, nil
}

// CheckRefPrefix checks a prefix for session refs, which may come from a
// settings file committed by someone else: refs/, then one or more names
// git accepts, then /. No component may climb out with `..` or hide as a
// dot file, and checkpoints' own places (refs/snap-tags/, refs/tags/snap/,
// refs/snap-moved/) are no session prefix.
func CheckRefPrefix(p string) error {
	inner, ok := strings.CutPrefix(p, "refs/")
	inner, ok2 := strings.CutSuffix(inner, "/")
	if !ok || !ok2 || inner == "" {
		return &storage.OptionsError{Msg: fmt.Sprintf("ref prefix %q must be refs/, one or more names, and a final /, like refs/snap/", p)}
	}
	for _, part := range strings.Split(inner, "/") {
		if err := snapshot.CheckName("ref prefix component", part); err != nil {
			return &storage.OptionsError{Msg: fmt.Sprintf("ref prefix %q: %v", p, err)}
		}
	}
	for _, cp := range []string{CheckpointPrefix, TagPrefix, MovedPrefix} {
		if strings.HasPrefix(p, cp) || strings.HasPrefix(cp, p) {
			return &storage.OptionsError{Msg: fmt.Sprintf("ref prefix %q would mix sessions with checkpoints (%s)", p, cp)}
		}
	}
	if gitNamespaces[inner] {
		return &storage.OptionsError{Msg: fmt.Sprintf("ref prefix %q would make sessions of git's own refs; use a folder of its own, like refs/%s/snap/", p, inner)}
	}
	return nil
}

// gitNamespaces are the folders of refs/ that git gives a meaning to.
var gitNamespaces = map[string]bool{"heads": true, "tags": true, "remotes": true, "notes": true, "replace": true, "stash": true, "bisect": true, "rewritten": true, "worktree": true, "prefetch": true}
