package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/storage"
)

// RemoteMigration says what MigrateRemote did, or would do.
type RemoteMigration struct {
	Moved int // sessions moved from their own refs into shards
	// Diverged are sessions whose own ref and shard entry both moved on
	// since they parted: the ref's is merged into the local session and
	// stays at the remote until a push sends the merge and a migration
	// run again finds the ref behind it.
	Diverged []string
}

// deleteBatch is how many refs one git push deletes: each takes two
// arguments, and a command line holds a few megabytes.
const deleteBatch = 2000

// MigrateRemote moves a remote that keeps one ref per session into
// shards (see ShardPrefix): every session is written into its shard,
// then its ref is deleted there while it is still where it was fetched,
// so that a snapshot an older version pushes meanwhile is kept, in its
// ref, for the next migration. Checkpoints stay as they are.
func (s *Store) MigrateRemote(ctx context.Context, o RemoteOptions, dryRun bool) (res RemoteMigration, err error) {
	err = s.holdRemote(ctx, o.remote(), func() error {
		res, err = s.migrateRemote(ctx, o, dryRun)
		return err
	})
	return res, err
}

// migrateRemote is MigrateRemote, with the remote held.
func (s *Store) migrateRemote(ctx context.Context, o RemoteOptions, dryRun bool) (RemoteMigration, error) {
	old, err := s.fetchForMigration(ctx, o)
	if err != nil {
		return RemoteMigration{}, err
	}
	lists, at, err := s.remoteShards(o.remote(), true)
	if err != nil {
		return RemoteMigration{}, err
	}
	var res RemoteMigration
	changed := map[string]bool{}
	var folded []string // refs whose sessions the shards now hold
	for _, name := range sortedNames(old) {
		keep, err := s.foldRef(ctx, lists, name, old[name])
		if err != nil {
			return res, err
		}
		if !keep {
			res.Diverged = append(res.Diverged, name)
			if !dryRun {
				if _, err := s.Integrate(ctx, name, old[name], "migrate --remote "+o.remote()); err != nil {
					return res, err
				}
			}
			continue
		}
		folded = append(folded, name)
		changed[shardOf(name)] = true
	}
	res.Moved = len(folded)
	if dryRun || len(folded) == 0 {
		return res, nil
	}
	if err := s.sendShards(ctx, o, lists, at, sortedNames(changed), nil); err != nil {
		return res, err
	}
	if err := s.deleteOldRefs(ctx, o, folded, old); err != nil {
		return res, err
	}
	_, err = s.expandShards(ctx, o.remote(), nil)
	return res, err
}

// fetchForMigration fetches a remote's shards and its sessions' own refs,
// the latter into a namespace of their own, read and emptied here:
// session → tip.
func (s *Store) fetchForMigration(ctx context.Context, o RemoteOptions) (map[string]storage.ID, error) {
	tmp := "refs/remotes/" + trackingName(o.remote()) + "/snap-migrating/"
	specs := []string{"+" + ShardPrefix + "*:" + shardTracking(o.remote()) + "*", "+" + s.prefix + "*:" + tmp + "*"}
	if err := s.runGit(ctx, o.Progress, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", o.remote()}, specs...)...); err != nil {
		return nil, err
	}
	found, err := s.refs.List(tmp)
	if err != nil {
		return nil, err
	}
	out := map[string]storage.ID{}
	for ref, id := range found {
		if err := s.refs.Update(ctx, ref, id, storage.ID{}, "migrate --remote"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return nil, err
		}
		name := strings.TrimPrefix(ref, tmp)
		if _, ok := s.sessionOfRef(s.prefix + name); !ok {
			return nil, &IncomingError{"remote " + o.remote(), fmt.Sprintf("%q is not a git-snap session name; nothing was changed", name)}
		}
		out[name] = id
	}
	return out, nil
}

// foldRef puts a session's own ref, at tip, into its shard's list,
// unless the shard holds it further on; false when the two diverged.
func (s *Store) foldRef(ctx context.Context, lists map[string]shardList, name string, tip storage.ID) (bool, error) {
	shard := shardOf(name)
	if lists[shard] == nil {
		lists[shard] = shardList{}
	}
	there := lists[shard][name]
	if there.IsZero() || there == tip {
		lists[shard][name] = tip
		return true, nil
	}
	if ok, err := s.isAncestor(ctx, there, tip); err != nil || ok {
		lists[shard][name] = tip
		return ok, err
	}
	return s.isAncestor(ctx, tip, there)
}

// deleteOldRefs deletes sessions' own refs at the remote, each with a
// lease on the tip it was fetched at.
func (s *Store) deleteOldRefs(ctx context.Context, o RemoteOptions, names []string, old map[string]storage.ID) error {
	for len(names) > 0 {
		n := min(len(names), deleteBatch)
		args := []string{"push", "--porcelain"}
		var specs []string
		for _, name := range names[:n] {
			args = append(args, "--force-with-lease="+s.SessionRef(name)+":"+old[name].String())
			specs = append(specs, ":"+s.SessionRef(name))
		}
		if err := s.runGit(ctx, o.Progress, append(append(args, o.remote()), specs...)...); err != nil {
			return fmt.Errorf("migrate --remote: the shards hold every session, but deleting their own refs failed (run it again): %w", err)
		}
		names = names[n:]
	}
	return nil
}

// sortedNames lists a map's keys in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
