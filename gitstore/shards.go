package gitstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// A remote keeps its sessions in a fixed number of refs, not one ref per
// session: git push has no protocol v2, so a remote advertises every ref
// it holds on every push, and 100k session refs made a team's code push
// 85 times slower. Each shard ref is at a commit whose one file,
// "sessions", lists the sessions whose names hash to that shard, a line
// "<tip> <session>" each, sorted by name; the commit's parents are those
// tips, so that git sends, keeps and collects their history as it does
// any commit's. A clone expands the shards it fetches into
// refs/remotes/<remote>/snap/<session>, where everything that reads a
// remote's sessions finds them. Checkpoints, which people name one by
// one, stay one ref each.

// ShardPrefix is where a remote keeps the refs that carry its sessions.
const ShardPrefix = "refs/snap-shards/"

// shardCount is how many shard refs a remote holds at most: few enough
// that git does not feel them (a push to a remote with 64 more refs is
// within noise), many enough that two clones pushing at once seldom
// touch the same one (a push that lost the race fetches and tries again).
const shardCount = 64

// shardFile is the one file of a shard commit.
const shardFile = "sessions"

// shardOf names the shard that carries a session: two hex digits.
func shardOf(session string) string {
	h := sha1.Sum([]byte(session))
	return fmt.Sprintf("%02x", h[0]%shardCount)
}

// shardList is what a shard carries: session → tip.
type shardList map[string]storage.ID

// encode writes the list as the shard's file: sorted, a line each.
func (l shardList) encode() []byte {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", l[n], n)
	}
	return b.Bytes()
}

// parseShardList reads a shard's file, refusing what no git-snap writes:
// a line that is not "<tip> <session>", a session name git-snap refuses
// or that belongs to another shard, names out of order or twice.
func parseShardList(shard string, data []byte) (shardList, error) {
	out := shardList{}
	prev := ""
	for n, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			break
		}
		hex, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		id := storage.NewID(hex)
		switch {
		case !ok || !strings.HasSuffix(line, "\n") || id.IsZero() || id.String() != hex:
			return nil, fmt.Errorf("line %d is not \"<tip> <session>\"", n+1)
		case snapshot.CheckName("session", name) != nil:
			return nil, fmt.Errorf("line %d: %v", n+1, snapshot.CheckName("session", name))
		case shardOf(name) != shard:
			return nil, fmt.Errorf("line %d: session %q belongs in shard %s", n+1, name, shardOf(name))
		case name <= prev:
			return nil, fmt.Errorf("line %d: session %q is out of order or listed twice", n+1, name)
		}
		out[name], prev = id, name
	}
	return out, nil
}

// readShard reads the list a shard commit carries, checking that each
// tip is one of the commit's parents: what a fetch of the shard brought.
func (s *Store) readShard(shard string, id storage.ID) (shardList, error) {
	c, err := s.st.commit(id)
	if err != nil {
		return nil, err
	}
	t, err := s.st.tree(c.Tree)
	if err != nil {
		return nil, err
	}
	if len(t.Entries) != 1 || t.Entries[0].Name != shardFile || t.Entries[0].Mode != filemode.Regular {
		return nil, fmt.Errorf("its tree must hold one file, %q", shardFile)
	}
	data, err := s.st.blobData(t.Entries[0].Hash)
	if err != nil {
		return nil, err
	}
	list, err := parseShardList(shard, data)
	if err != nil {
		return nil, err
	}
	parents := map[storage.ID]bool{}
	for _, p := range c.Parents {
		parents[p] = true
	}
	for name, tip := range list {
		if !parents[tip] {
			return nil, fmt.Errorf("session %s's tip %s is not one of its parents", name, tip)
		}
	}
	return list, nil
}

// writeShard commits a shard's list, its parents the tips it lists.
func (s *Store) writeShard(list shardList) (storage.ID, error) {
	blob := gitobj.New(plumbing.BlobObject, list.encode())
	tree := gitobj.NewTree([]gitobj.TreeEntry{{Name: shardFile, Mode: filemode.Regular, Hash: blob.Hash}})
	var parents []storage.ID
	for _, tip := range list {
		parents = append(parents, tip)
	}
	slices.SortFunc(parents, func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) })
	parents = slices.Compact(parents)
	sig := s.identity(s.opts.Now())
	commit := gitobj.NewCommit(tree.Hash, parents, sig, sig, fmt.Sprintf("git-snap: %d sessions\n", len(list)))
	for _, o := range []gitobj.Object{blob, tree, commit} {
		if _, err := s.storeObject(o); err != nil {
			return storage.ID{}, err
		}
	}
	return commit.Hash, nil
}

// shardTracking is where a clone keeps a remote's shard refs.
func shardTracking(remote string) string {
	return "refs/remotes/" + trackingName(remote) + "/snap-shards/"
}

// remoteShards reads the shards last fetched from remote: shard → list,
// and shard → the commit it was at.
func (s *Store) remoteShards(remote string) (map[string]shardList, map[string]storage.ID, error) {
	prefix := shardTracking(remote)
	tips, err := s.refs.List(prefix)
	if err != nil {
		return nil, nil, err
	}
	lists := map[string]shardList{}
	at := map[string]storage.ID{}
	for ref, id := range tips {
		shard := strings.TrimPrefix(ref, prefix)
		list, err := s.readShard(shard, id)
		if err != nil {
			return nil, nil, &IncomingError{"remote " + remote, fmt.Sprintf("shard %s (%s) is not one git-snap wrote: %v; nothing was changed", shard, id, err)}
		}
		lists[shard], at[shard] = list, id
	}
	return lists, at, nil
}

// expandShards sets refs/remotes/<remote>/snap/<session> to the tip each
// fetched shard lists for it (for the sessions named, or all), as a fetch
// of one ref per session would, so that pull, the viewer and revisions
// read a remote's sessions alike whichever way the remote keeps them.
func (s *Store) expandShards(ctx context.Context, remote string, sessions []string) error {
	lists, _, err := s.remoteShards(remote)
	if err != nil {
		return err
	}
	track := s.sharedNamespaces(remote)[0].tracking
	have, err := s.refs.List(track) // one read of them all: a remote may hold 100k
	if err != nil {
		return err
	}
	for _, list := range lists {
		for name, tip := range list {
			if len(sessions) > 0 && !contains(sessions, name) {
				continue
			}
			old := have[track+name]
			if old == tip {
				continue
			}
			if err := s.refs.Update(ctx, track+name, old, tip, "fetch: shard "+shardOf(name)); err != nil && !errors.Is(err, refs.ErrChanged) {
				return err
			}
		}
	}
	return nil
}

// Layouts a remote may keep its sessions in.
const (
	layoutUnknown = iota // nothing fetched from it yet
	layoutRefs           // one ref per session, as earlier versions pushed
	layoutShards
)

// remoteLayout says how remote keeps its sessions, as last fetched.
func (s *Store) remoteLayout(remote string) (int, error) {
	shards, err := s.refs.List(shardTracking(remote))
	if err != nil || len(shards) > 0 {
		return layoutShards, err
	}
	one, err := s.refs.List(s.sharedNamespaces(remote)[0].tracking)
	if err != nil || len(one) > 0 {
		return layoutRefs, err
	}
	return layoutUnknown, nil
}

// shardsOf names the shards that carry sessions, each once, sorted.
func shardsOf(sessions []string) []string {
	var out []string
	for _, name := range sessions {
		out = append(out, shardOf(name))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pushShards sends sessions into the remote's shards. A shard another
// clone pushed to since this one fetched it is fetched again and the
// push tried again: the race is on the shard, not on the sessions, so
// nobody's pull is needed unless a session itself moved on there.
func (s *Store) pushShards(ctx context.Context, o RemoteOptions) error {
	lists, _, err := s.remoteShards(o.remote())
	if err != nil {
		return err
	}
	seen := map[string]storage.ID{} // each session's tip there, as this clone last saw it
	for _, list := range lists {
		maps.Copy(seen, list)
	}
	for attempt := 1; ; attempt++ {
		err := s.pushShardsOnce(ctx, o, seen)
		if err == nil || attempt == 5 || !staleShards(err) {
			return err
		}
		if err := s.Fetch(ctx, RemoteOptions{Remote: o.Remote, Progress: o.Progress}); err != nil {
			return err
		}
	}
}

// pushShardsOnce writes the shards the push changes and pushes them, each
// with a lease on the commit this clone last fetched it at, with the
// sessions' checkpoints.
func (s *Store) pushShardsOnce(ctx context.Context, o RemoteOptions, seen map[string]storage.ID) error {
	lists, at, err := s.remoteShards(o.remote())
	if err != nil {
		return err
	}
	changed, err := s.shardChanges(ctx, o, lists, seen)
	if err != nil {
		return err
	}
	var leases, extra []string
	if o.ForceWithLease {
		if leases, err = s.leases(o.remote(), o.Sessions, true); err != nil {
			return err
		}
	}
	if !o.Delete {
		extra = s.checkpointSpecs(o.Sessions)
	}
	return s.sendShards(ctx, o, lists, at, changed, append(leases, extra...))
}

// sendShards commits the lists of the shards changed and pushes them,
// each with a lease on the commit at names (none: the shard must not
// exist yet), with more of git push's arguments (options first, then
// refspecs); then the clone's shard refs note what was sent.
func (s *Store) sendShards(ctx context.Context, o RemoteOptions, lists map[string]shardList, at map[string]storage.ID, changed, more []string) error {
	args := []string{"push", "--porcelain"}
	var specs []string
	sent := map[string]storage.ID{}
	for _, shard := range changed {
		id, err := s.writeShard(lists[shard])
		if err != nil {
			return err
		}
		expect := ""
		if !at[shard].IsZero() {
			expect = at[shard].String()
		}
		args = append(args, "--force-with-lease="+ShardPrefix+shard+":"+expect)
		specs = append(specs, id.String()+":"+ShardPrefix+shard)
		sent[shard] = id
	}
	for _, a := range more {
		if strings.HasPrefix(a, "--") {
			args = append(args, a)
		} else {
			specs = append(specs, a)
		}
	}
	if len(specs) == 0 {
		return nil
	}
	if err := s.runGit(ctx, o.Progress, append(append(args, o.remote()), specs...)...); err != nil {
		return err
	}
	for shard, id := range sent {
		ref := shardTracking(o.remote()) + shard
		if err := s.refs.Update(ctx, ref, at[shard], id, "push"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
	}
	return nil
}

// shardChanges puts the local tip of each session pushed into its
// shard's list, and names the shards that changed. A session whose tip
// there is not in its local history is refused (pull first), unless
// ForceWithLease replaces it while it is where this clone last saw it.
func (s *Store) shardChanges(ctx context.Context, o RemoteOptions, lists map[string]shardList, seen map[string]storage.ID) ([]string, error) {
	if o.Delete {
		return s.shardDeletions(o.Sessions, lists, seen)
	}
	local, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for ref, tip := range local {
		name := strings.TrimPrefix(ref, s.prefix)
		if len(o.Sessions) > 0 && !contains(o.Sessions, name) {
			continue
		}
		shard := shardOf(name)
		if lists[shard] == nil {
			lists[shard] = shardList{}
		}
		there := lists[shard][name]
		if there == tip {
			continue
		}
		if err := s.mayPush(ctx, o, name, there, tip, seen[name]); err != nil {
			return nil, err
		}
		lists[shard][name], changed[shard] = tip, true
	}
	out := make([]string, 0, len(changed))
	for shard := range changed {
		out = append(out, shard)
	}
	slices.Sort(out)
	return out, nil
}

// mayPush says whether a push may set a session the remote has at
// there to tip: when tip builds on it, or, with ForceWithLease, when
// there is what this clone saw before the push began.
func (s *Store) mayPush(ctx context.Context, o RemoteOptions, name string, there, tip, saw storage.ID) error {
	if there.IsZero() {
		return nil
	}
	if o.ForceWithLease {
		if there != saw {
			return fmt.Errorf("push: %s: the remote moved since this clone last fetched it; git snap pull, look, and push --force-with-lease again", name)
		}
		return nil
	}
	ok, err := s.isAncestor(ctx, there, tip)
	if err != nil {
		return fmt.Errorf("push: %s: %w", name, err)
	}
	if !ok {
		return fmt.Errorf("push: %s: the remote has snapshots this clone lacks; git snap pull first (or, when this clone pruned it, git snap push --force-with-lease)", name)
	}
	return nil
}

// staleShards reports whether a push failed only on shards: moved at
// the remote since this clone fetched them (git push's "stale info"), or
// taken by another push at the same moment (the remote's "failed to
// update ref"), which fetching them again and retrying fixes.
func staleShards(err error) bool {
	stale := false
	for _, line := range strings.Split(err.Error(), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) < 3 || fields[0] != "!" {
			continue
		}
		_, dst, _ := strings.Cut(fields[1], ":")
		if !strings.HasPrefix(dst, ShardPrefix) {
			return false
		}
		stale = true
	}
	return stale
}

// shardDeletions takes sessions out of their shards' lists, each only
// while it is where this clone last saw it, and names the shards changed.
func (s *Store) shardDeletions(sessions []string, lists map[string]shardList, seen map[string]storage.ID) ([]string, error) {
	for _, name := range sessions {
		list := lists[shardOf(name)]
		switch {
		case seen[name].IsZero():
			return nil, errNotSeen(name)
		case list[name] != seen[name]:
			return nil, fmt.Errorf("push --delete: %s: the remote moved since this clone last fetched it; git snap pull, look, and try again", name)
		}
		delete(list, name)
	}
	return shardsOf(sessions), nil
}
