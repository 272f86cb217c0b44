package gitstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/snapshot"
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

// verifyIncoming checks that every snapshot and object reachable from
// tips is here, that every commit is a snapshot and every tree holds only
// what a snapshot may hold. seen carries what was already checked, so
// that tips sharing history are read once.
func (s *Store) verifyIncoming(ctx context.Context, source string, tips []plumbing.Hash, seen map[plumbing.Hash]bool) error {
	err := s.Walk(ctx, tips, func(e Entry) error {
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
func (s *Store) verifyTree(h plumbing.Hash, seen map[plumbing.Hash]bool) error {
	if seen[h] {
		return nil
	}
	seen[h] = true
	t, err := object.GetTree(s.st, h)
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
	target  plumbing.Hash // a snapshot
	tag     string        // the checkpoint's ref, for a checkpoint
	tagHash plumbing.Hash
}

// incomingRefs checks refs from a bundle or a remote, names and history,
// all of them before any ref moves.
func (s *Store) incomingRefs(ctx context.Context, source string, refs []BundleRef) ([]incomingRef, error) {
	var out []incomingRef
	var tips []plumbing.Hash
	for _, ref := range refs {
		in, err := s.incomingRef(ref)
		if err != nil {
			return nil, &IncomingError{source, err.Error()}
		}
		out = append(out, in)
		tips = append(tips, in.target)
	}
	if err := s.verifyIncoming(ctx, source, tips, map[plumbing.Hash]bool{}); err != nil {
		return nil, err
	}
	return out, nil
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
		return &OptionsError{fmt.Sprintf("ref prefix %q must be refs/, one or more names, and a final /, like refs/snap/", p)}
	}
	for _, part := range strings.Split(inner, "/") {
		if err := snapshot.CheckName("ref prefix component", part); err != nil {
			return &OptionsError{fmt.Sprintf("ref prefix %q: %v", p, err)}
		}
	}
	for _, cp := range []string{CheckpointPrefix, TagPrefix, MovedPrefix} {
		if strings.HasPrefix(p, cp) || strings.HasPrefix(cp, p) {
			return &OptionsError{fmt.Sprintf("ref prefix %q would mix sessions with checkpoints (%s)", p, cp)}
		}
	}
	if gitNamespaces[inner] {
		return &OptionsError{fmt.Sprintf("ref prefix %q would make sessions of git's own refs; use a folder of its own, like refs/%s/snap/", p, inner)}
	}
	return nil
}

// gitNamespaces are the folders of refs/ that git gives a meaning to.
var gitNamespaces = map[string]bool{"heads": true, "tags": true, "remotes": true, "notes": true, "replace": true, "stash": true, "bisect": true, "rewritten": true, "worktree": true, "prefetch": true}
