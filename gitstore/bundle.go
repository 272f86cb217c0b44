package gitstore

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/storage"
)

const bundleV2 = "# v2 git bundle\n"

// WriteBundle writes a git bundle (a file git bundle, git fetch and git
// snap import all read) holding the given refs — sessions under the ref
// prefix, checkpoints under refs/snap-tags/ (or refs/tags/snap/) — and everything they reach.
func (s *Store) WriteBundle(ctx context.Context, w io.Writer, refs []string) (int, error) {
	tips := map[string]storage.ID{}
	var wants []storage.ID
	var tags []storage.ID
	for _, ref := range refs {
		h, err := s.refs.Read(ref)
		if err != nil {
			return 0, err
		}
		if h.IsZero() {
			return 0, &storage.NotFoundError{Name: ref, Msg: "names nothing to bundle"}
		}
		tips[ref] = h
		target, err := s.peel(h)
		if err != nil {
			return 0, err
		}
		if target != h {
			tags = append(tags, h)
		}
		wants = append(wants, target)
	}
	objs, err := s.reachable(ctx, wants)
	if err != nil {
		return 0, fmt.Errorf("list the bundle's objects: %w", err)
	}
	objs = append(objs, tags...)
	var header strings.Builder
	header.WriteString(bundleV2)
	for _, ref := range refs {
		fmt.Fprintf(&header, "%s %s\n", tips[ref], ref)
	}
	header.WriteString("\n")
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(header.String()); err != nil {
		return 0, fmt.Errorf("write the bundle's header: %w", err)
	}
	hashes := make([]plumbing.Hash, len(objs))
	for i, id := range objs {
		hashes[i] = plumbing.Hash(id)
	}
	if _, err := packfile.NewEncoder(bw, namingMissing{s.st}, false).Encode(hashes, 10); err != nil {
		return 0, fmt.Errorf("write the bundle's pack: %w", err)
	}
	return len(objs), bw.Flush()
}

// namingMissing is the object reader as go-git's pack encoder reads it
// (storer.EncodedObjectStorer): an object it cannot read is named in the
// error, which the encoder passes on bare ("object not found" of a blob
// reachable lists without reading). It is the one place go-git sees the
// store's objects, so ids cross here.
type namingMissing struct{ r *objectReader }

// EncodedObject reads object h, naming it in an error.
func (n namingMissing) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := n.r.EncodedObject(t, storage.ID(h))
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	return o, nil
}

// HasEncodedObject reports whether object h is stored.
func (n namingMissing) HasEncodedObject(h plumbing.Hash) error {
	return n.r.HasEncodedObject(storage.ID(h))
}

// EncodedObjectSize is an object's size, read whole.
func (n namingMissing) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	_, data, err := n.r.read(storage.ID(h))
	return int64(len(data)), err
}

// errReadOnly is what the object storer methods a pack encoder never
// calls answer: objects are written by writeLoose and batches alone.
var errReadOnly = errors.New("the store's object reader does not write through go-git")

// NewEncodedObject is an object in memory, for go-git.
func (namingMissing) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// SetEncodedObject is refused: see errReadOnly.
func (namingMissing) SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error) {
	return plumbing.ZeroHash, errReadOnly
}

// IterEncodedObjects is refused: nothing lists every object.
func (namingMissing) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errReadOnly
}

// AddAlternate is refused: git-snap never adds one.
func (namingMissing) AddAlternate(string) error { return errReadOnly }

// BundleRef is a ref a bundle holds.
type BundleRef struct {
	Name string
	Hash storage.ID
}

// ReadBundle checks a bundle and stores its objects: header, that every
// prerequisite is here, and the pack, whose checksum and objects are
// verified as it is written. Only refs git-snap owns are accepted. No
// ref is changed: see ImportBundle.
func (s *Store) ReadBundle(ctx context.Context, r io.Reader) ([]BundleRef, error) {
	br := bufio.NewReader(r)
	head, err := br.ReadString('\n')
	if err != nil || head != bundleV2 && head != "# v3 git bundle\n" {
		return nil, &BundleError{"not a git bundle (no \"# v2 git bundle\" header)"}
	}
	var refs []BundleRef
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, &BundleError{"the bundle's header is truncated"}
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			return refs, s.readBundlePack(br, refs)
		case strings.HasPrefix(line, "@"):
			if line != "@object-format=sha1" && !strings.HasPrefix(line, "@filter") {
				return nil, &BundleError{fmt.Sprintf("unsupported bundle capability %q", line)}
			}
		case strings.HasPrefix(line, "-"):
			id, _, _ := strings.Cut(line[1:], " ")
			if !storage.IsID(id) {
				return nil, &BundleError{fmt.Sprintf("bad prerequisite line %q", line)}
			}
			if _, err := s.st.EncodedObject(plumbing.AnyObject, storage.NewID(id)); err != nil {
				return nil, &BundleError{fmt.Sprintf("the bundle needs snapshot %s, which this repository does not have; pull or import what comes before it first", id[:12])}
			}
		default:
			id, name, ok := strings.Cut(line, " ")
			if !ok || !storage.IsID(id) || len(id) != 40 {
				return nil, &BundleError{fmt.Sprintf("bad ref line %q", line)}
			}
			if _, ok := s.sessionOfRef(name); !ok {
				if _, _, ok := checkpointOfRef(name); !ok {
					return nil, &BundleError{fmt.Sprintf("the bundle holds %q, which is not a git-snap session or checkpoint name; nothing was imported", name)}
				}
			}
			refs = append(refs, BundleRef{name, storage.NewID(id)})
		}
	}
}

func (s *Store) readBundlePack(r io.Reader, refs []BundleRef) error {
	if _, err := pack.Receive(filepath.Join(s.paths.CommonDir, "objects", "pack"), "tmp_pack_", r); err != nil {
		return &BundleError{fmt.Sprintf("the bundle's pack is damaged: %v", err)}
	}
	s.st.reload()
	for _, ref := range refs {
		if _, err := s.st.EncodedObject(plumbing.AnyObject, ref.Hash); err != nil {
			return &BundleError{fmt.Sprintf("the bundle names %s for %s but does not hold it", ref.Hash.String()[:12], ref.Name)}
		}
	}
	return nil
}

// BundleError means a bundle cannot be used as it is.
type BundleError struct{ Msg string }

// Error describes what is wrong with the bundle.
func (e *BundleError) Error() string { return "bundle: " + e.Msg }

// ImportBundle reads a bundle and brings its sessions into the local ones
// as Pull does (created, fast-forwarded or merged, never losing a side),
// and adds its checkpoints this repository lacks. It gives one result
// per session: the sessions' refs are brought in first, so that their
// checkpoints' snapshots, already in their history, change nothing more.
func (s *Store) ImportBundle(ctx context.Context, r io.Reader) ([]PullResult, error) {
	refs, err := s.ReadBundle(ctx, r)
	if err != nil {
		return nil, err
	}
	local, err := s.localRefs()
	if err != nil {
		return nil, err
	}
	incoming, err := s.incomingRefs(ctx, "bundle", refs, local)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(incoming, func(a, b incomingRef) int { return cmp.Compare(a.tag, b.tag) }) // "" first
	var out []PullResult
	of := map[string]int{} // session → its result in out
	for _, in := range incoming {
		if in.tag != "" { // a checkpoint: its snapshot joins its session
			if err := s.adoptTag(ctx, in.tag, in.tagHash); err != nil {
				return out, err
			}
		}
		res, err := s.integrate(ctx, in.session, in.target, "import bundle", nil)
		if err != nil {
			return out, fmt.Errorf("import %s: %w", in.session, err)
		}
		if i, ok := of[in.session]; ok {
			if res.Action != PullUpToDate && res.Action != PullAhead {
				out[i] = res // a checkpoint off the session's history, merged in
			}
			continue
		}
		of[in.session] = len(out)
		out = append(out, res)
	}
	return out, nil
}

// BundleRefs names the refs a bundle of names holds: a session's ref
// and its checkpoints' tags, as push sends them, and snap/<session>/<name>
// a checkpoint's tag alone; no names is every session. A name that is
// neither is the caller's to have checked. Each ref is named once.
func (s *Store) BundleRefs(ctx context.Context, names []string) ([]string, error) {
	var sessions []string
	if len(names) == 0 {
		all, err := s.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		for _, sess := range all {
			sessions = append(sessions, sess.Name)
		}
	}
	var refs []string
	for _, n := range names {
		if sess, cp, ok := strings.Cut(strings.TrimPrefix(n, "snap/"), "/"); ok {
			ref, _, err := s.findCheckpoint(sess, cp)
			if err != nil {
				return nil, err
			}
			refs = append(refs, ref)
			continue
		}
		sessions = append(sessions, n)
	}
	if len(sessions) > 0 {
		cps, err := s.Checkpoints(ctx, "", false) // once: a session at a time read every tag each time
		var damaged *storage.DamagedCheckpoints
		if errors.As(err, &damaged) {
			err = damaged.Of(sessions...) // another session's damage does not stop this bundle
		}
		if err != nil {
			return nil, err
		}
		bySession := map[string][]string{}
		for _, c := range cps {
			bySession[c.Session] = append(bySession[c.Session], c.Ref)
		}
		for _, sess := range sessions {
			refs = append(refs, s.SessionRef(sess))
			refs = append(refs, bySession[sess]...)
		}
	}
	slices.Sort(refs)
	return slices.Compact(refs), nil
}

// reachable lists every object the commits wants reach: the commits and
// all their ancestors, their trees and blobs, each once (what git
// rev-list --objects lists). Submodule entries name no object here.
func (s *Store) reachable(ctx context.Context, wants []storage.ID) ([]storage.ID, error) {
	seen := map[storage.ID]bool{}
	var out []storage.ID
	add := func(h storage.ID) bool {
		if seen[h] {
			return false
		}
		seen[h] = true
		out = append(out, h)
		return true
	}
	var walkTree func(h storage.ID) error
	walkTree = func(h storage.ID) error {
		t, err := s.st.tree(h)
		if err != nil {
			return fmt.Errorf("tree %s: %w", h, err)
		}
		for _, e := range t.Entries {
			switch e.Mode {
			case filemode.Submodule:
			case filemode.Dir:
				if add(e.Hash) {
					err = walkTree(e.Hash)
				}
			default:
				add(e.Hash)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	todo := slices.Clone(wants)
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !add(id) {
			continue
		}
		c, err := s.st.commit(id)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", id, err)
		}
		if add(c.Tree) {
			if err := walkTree(c.Tree); err != nil {
				return nil, err
			}
		}
		todo = append(todo, c.Parents...)
	}
	return out, nil
}
