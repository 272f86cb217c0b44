package gitstore

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

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
// "<tip> <session>" each, sorted by name. Its history carries the tips,
// so that git sends, keeps and collects them as it does any commit's: a
// chain of link commits, newest tip first, each with a tip and the next
// link as parents and the tip's date (see writeShard). A clone expands
// the shards it fetches into refs/remotes/<remote>/snap/<session>, where
// everything that reads a remote's sessions finds them. Checkpoints,
// which people name one by one, stay one ref each.

// ShardPrefix is where a remote keeps the refs that carry its sessions.
const ShardPrefix = "refs/snap-shards/"

// shardCount is how many shard refs a remote holds at most: few enough
// that git does not feel them (a push to a remote with 64 more refs is
// within noise), many enough that two clones pushing at once seldom
// touch the same one (a push that lost the race fetches and tries again).
const shardCount = 64

// maxShardSessions bounds what a remote's shard may list, so that a
// hostile remote cannot make a fetch write refs without end: 64 shards
// of it are 16.7M sessions, 46 years of a team of 50 making 20 a day.
const maxShardSessions = 1 << 18

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
	if n := bytes.Count(data, []byte("\n")); n > maxShardSessions {
		return nil, fmt.Errorf("it lists %d sessions, more than the %d a shard may hold", n, maxShardSessions)
	}
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

// readShard reads the list a shard commit carries, and with verify checks
// that each tip is here: what a fetch of the shard brought with its
// history. A shard this clone fetched or pushed was checked then.
func (s *Store) readShard(shard string, id storage.ID, verify bool) (shardList, error) {
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
	for name, tip := range list {
		if !verify {
			break
		}
		if err := s.st.HasEncodedObject(tip); err != nil {
			return nil, fmt.Errorf("session %s's tip %s is not here: the shard's history does not carry it", name, tip)
		}
	}
	return list, nil
}

// writeShard commits a shard's list on a chain of links that carries its
// tips. git walks history keeping the commits it has yet to visit in a
// list sorted by date, and inserts each parent by scanning that list: a
// commit with every tip as a parent left 100k commits of all dates in it
// at once, and a first fetch of 100k sessions spent minutes there. Along
// a chain dated as its tips, newest first, the list holds a few commits
// per shard. A push that moves one session rewrites the links from the
// newest down to where that session was; those below stay as they were.
func (s *Store) writeShard(list shardList) (storage.ID, error) {
	tips, err := s.newestFirst(list)
	if err != nil {
		return storage.ID{}, err
	}
	empty := gitobj.NewTree(nil)
	if err := s.storeNew(empty); err != nil {
		return storage.ID{}, err
	}
	var next storage.ID
	for i := len(tips) - 1; i >= 1; i-- {
		sig := s.identity(time.Unix(tips[i].when, 0).UTC())
		link := gitobj.NewCommit(empty.Hash, withNext(tips[i].id, next), sig, sig, "git-snap: sessions\n")
		if err := s.storeNew(link); err != nil {
			return storage.ID{}, err
		}
		next = link.Hash
	}
	blob := gitobj.New(plumbing.BlobObject, list.encode())
	tree := gitobj.NewTree([]gitobj.TreeEntry{{Name: shardFile, Mode: filemode.Regular, Hash: blob.Hash}})
	var parents []storage.ID
	if len(tips) > 0 {
		parents = withNext(tips[0].id, next)
	}
	sig := s.identity(s.opts.Now())
	commit := gitobj.NewCommit(tree.Hash, parents, sig, sig, fmt.Sprintf("git-snap: %d sessions\n", len(list)))
	for _, o := range []gitobj.Object{blob, tree, commit} {
		if err := s.storeNew(o); err != nil {
			return storage.ID{}, err
		}
	}
	return commit.Hash, nil
}

// withNext is a link's parents: its tip, then the next link if any.
func withNext(tip, next storage.ID) []storage.ID {
	if next.IsZero() {
		return []storage.ID{tip}
	}
	return []storage.ID{tip, next}
}

// storeNew stores an object unless it is here already: most of a
// shard's links are, after its first push.
func (s *Store) storeNew(o gitobj.Object) error {
	if s.st.HasEncodedObject(o.Hash) == nil {
		return nil
	}
	_, err := s.storeObject(o)
	return err
}

// datedTip is a shard's tip and its commit's time.
type datedTip struct {
	id   storage.ID
	when int64
}

// newestFirst orders a shard's tips by their commits' times, newest
// first, each once.
func (s *Store) newestFirst(list shardList) ([]datedTip, error) {
	seen := map[storage.ID]bool{}
	var tips []datedTip
	for _, tip := range list {
		if seen[tip] {
			continue
		}
		seen[tip] = true
		c, err := s.st.commit(tip)
		if err != nil {
			return nil, err
		}
		tips = append(tips, datedTip{tip, c.When.Unix()})
	}
	slices.SortFunc(tips, func(a, b datedTip) int {
		if a.when != b.when {
			return cmp.Compare(b.when, a.when)
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
	return tips, nil
}

// shardTracking is where a clone keeps a remote's shard refs.
func shardTracking(remote string) string {
	return "refs/remotes/" + trackingName(remote) + "/snap-shards/"
}

// remoteShards reads the shards last fetched from remote: shard → list,
// and shard → the commit it was at; verify as readShard does.
func (s *Store) remoteShards(remote string, verify bool) (map[string]shardList, map[string]storage.ID, error) {
	prefix := shardTracking(remote)
	tips, err := s.refs.List(prefix)
	if err != nil {
		return nil, nil, err
	}
	lists := map[string]shardList{}
	at := map[string]storage.ID{}
	for ref, id := range tips {
		shard := strings.TrimPrefix(ref, prefix)
		list, err := s.readShard(shard, id, verify)
		if err != nil {
			return nil, nil, &IncomingError{"remote " + remote, fmt.Sprintf("shard %s (%s) is not one git-snap wrote: %v; nothing was changed", shard, id, err)}
		}
		lists[shard], at[shard] = list, id
	}
	return lists, at, nil
}

// expandShards sets refs/remotes/<remote>/snap/<session> to the tip each
// fetched shard lists for it, as a fetch of one ref per session would, so
// that pull, the viewer and revisions read a remote's sessions alike
// whichever way the remote keeps them. Shards still at the commit since
// names (the clone's shard refs before the fetch) were expanded then and
// are passed over; nil expands all. A shard is expanded whole, also for
// a fetch of some of its sessions: the fetch brought all their history,
// and a shard passed over later must have been. It returns the refs it
// moved, with where they were.
func (s *Store) expandShards(ctx context.Context, remote string, since map[string]storage.ID) (map[string]storage.ID, error) {
	lists, at, err := s.remoteShards(remote, true)
	if err != nil {
		return nil, err
	}
	for shard, id := range at {
		if since != nil && since[shardTracking(remote)+shard] == id {
			delete(lists, shard)
		}
	}
	track := s.sharedNamespaces(remote)[0].tracking
	read := s.trackedTips(track, len(lists))
	moved := map[string]storage.ID{}
	for _, list := range lists {
		for name, tip := range list {
			old, err := read(name)
			if err != nil {
				return nil, err
			}
			if old == tip {
				continue
			}
			if err := s.refs.Update(ctx, track+name, old, tip, "fetch: shard "+shardOf(name)); err != nil && !errors.Is(err, refs.ErrChanged) {
				return nil, err
			}
			moved[track+name] = old
		}
	}
	return moved, s.packManyRefs(ctx, len(moved))
}

// trackedTips reads the remote-tracking refs of sessions under track:
// one at a time for the few shards a fetch usually moves, all at once
// for many (a remote may hold 100k).
func (s *Store) trackedTips(track string, shards int) func(session string) (storage.ID, error) {
	if shards <= 4 {
		return func(session string) (storage.ID, error) { return s.refs.Read(track + session) }
	}
	all, err := s.refs.List(track)
	return func(session string) (storage.ID, error) { return all[track+session], err }
}

// restoreShards puts a remote's shard refs back where they were before a
// fetch brought shards that do not read: the next push leases on what
// this clone last read, and reads it again.
func (s *Store) restoreShards(ctx context.Context, remote string, before map[string]storage.ID) error {
	now, err := s.refs.List(shardTracking(remote))
	if err != nil {
		return err
	}
	for ref := range maps.Keys(before) {
		if _, ok := now[ref]; !ok {
			now[ref] = storage.ID{}
		}
	}
	for ref, cur := range now {
		if cur == before[ref] {
			continue
		}
		if err := s.refs.Update(ctx, ref, cur, before[ref], "fetch: shard refused"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
	}
	return nil
}

// packManyRefs has git pack the refs after many were written: git reads
// every loose ref on every push and fetch, and 100k of them made a code
// push take seconds.
func (s *Store) packManyRefs(ctx context.Context, written int) error {
	if written < 1000 {
		return nil
	}
	return s.runGit(ctx, nil, "pack-refs", "--all")
}

// Layouts a remote may keep its sessions in.
const (
	layoutUnknown = iota // nothing fetched from it yet
	layoutRefs           // one ref per session, as earlier versions pushed
	layoutShards
)

// KeepsRefPerSession reports whether remote keeps one ref per session, as
// last fetched: what git snap migrate --remote moves.
func (s *Store) KeepsRefPerSession(remote string) (bool, error) {
	layout, err := s.remoteLayout(remote)
	return layout == layoutRefs, err
}

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
	lists, at, err := s.remoteShards(o.remote(), false)
	if err != nil {
		return err
	}
	seen := map[string]storage.ID{} // each session's tip there, as this clone last saw it
	for _, list := range lists {
		maps.Copy(seen, list)
	}
	for attempt := 1; ; attempt++ {
		err := s.pushShardsOnce(ctx, o, seen, lists, at)
		if err == nil || attempt == 5 || !staleShards(err) {
			return err
		}
		if _, err := s.fetch(ctx, RemoteOptions{Remote: o.Remote, Progress: o.Progress}); err != nil {
			return err
		}
		if lists, at, err = s.remoteShards(o.remote(), false); err != nil {
			return err
		}
	}
}

// pushShardsOnce writes the shards the push changes into lists (as last
// fetched, at the commits at names) and pushes them, each with a lease
// on the commit this clone last fetched it at, with the sessions'
// checkpoints.
func (s *Store) pushShardsOnce(ctx context.Context, o RemoteOptions, seen map[string]storage.ID, lists map[string]shardList, at map[string]storage.ID) error {
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
