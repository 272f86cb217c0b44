package gitstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// RemoteOptions name what to share and with whom.
type RemoteOptions struct {
	Remote   string    // a remote's name or a URL; "origin" when empty
	Sessions []string  // all sessions when empty
	Progress io.Writer // git's progress, or nil
	// ForceWithLease lets a push replace the remote's sessions and
	// checkpoints (after a prune), each only while the remote still has
	// what this clone last fetched from it, as git push --force-with-lease.
	ForceWithLease bool
	// Delete makes a push remove the sessions named from the remote
	// (their checkpoints stay), each only while the remote has it where
	// this clone last saw it.
	Delete bool
}

func (o RemoteOptions) remote() string {
	if o.Remote == "" {
		return "origin"
	}
	return o.Remote
}

// trackingName is where a remote's sessions are kept locally:
// refs/remotes/<name>/snap/…; a URL gets a name derived from it.
func trackingName(remote string) string {
	if snapshot.CheckName("remote", remote) == nil {
		return remote
	}
	return fmt.Sprintf("url-%x", sha1.Sum([]byte(remote)))[:12]
}

// pushSpecs are the refspecs that send sessions, one ref each, and
// their checkpoints, and nothing else of the repository.
func (s *Store) pushSpecs(sessions []string) []string {
	if len(sessions) == 0 {
		return append([]string{s.prefix + "*:" + s.prefix + "*"}, s.checkpointSpecs(nil)...)
	}
	var specs []string
	for _, sess := range sessions {
		specs = append(specs, s.SessionRef(sess)+":"+s.SessionRef(sess))
	}
	return append(specs, s.checkpointSpecs(sessions)...)
}

// checkpointSpecs send the checkpoints of sessions (all when none are
// named), from both places they may be here, each to the same place
// there (see MigrateCheckpoints).
func (s *Store) checkpointSpecs(sessions []string) []string {
	var specs []string
	for _, cp := range s.checkpointPrefixes() {
		if len(sessions) == 0 {
			specs = append(specs, cp+"*:"+cp+"*")
		}
		for _, sess := range sessions {
			specs = append(specs, cp+sess+"/*:"+cp+sess+"/*")
		}
	}
	return specs
}

// shared pairs each namespace git-snap shares, sessions and checkpoints
// in both their places, with the namespace a fetch keeps a remote's copy
// of it under: refs/remotes/<remote>/snap/, …/snap-tags/ (checkpoints
// under refs/snap-tags/) and …/snap-checkpoints/ (under refs/tags/snap/,
// where versions before kept them).
type shared struct{ local, tracking string }

func (s *Store) sharedNamespaces(remote string) []shared {
	track := "refs/remotes/" + trackingName(remote) + "/"
	return []shared{{s.prefix, track + "snap/"}, {CheckpointPrefix, track + "snap-tags/"}, {TagPrefix, track + "snap-checkpoints/"}}
}

// fetchSpecs bring a remote's sessions and checkpoints into
// remote-tracking refs; local sessions change only on pull. Shards are
// always asked for, one ref per session only while the remote may still
// keep them so. Named sessions and shards are asked for as patterns,
// which match nothing rather than fail where the remote has none.
func (s *Store) fetchSpecs(remote string, sessions []string, layout int) []string {
	ns := s.sharedNamespaces(remote)
	if layout == layoutShards {
		ns = ns[1:]
	}
	track := shardTracking(remote)
	if len(sessions) == 0 {
		specs := []string{"+" + ShardPrefix + "*:" + track + "*"}
		for _, n := range ns {
			specs = append(specs, "+"+n.local+"*:"+n.tracking+"*")
		}
		return specs
	}
	var specs []string
	for _, shard := range shardsOf(sessions) {
		specs = append(specs, "+"+ShardPrefix+shard+"*:"+track+shard+"*")
	}
	for _, name := range sessions {
		for i, n := range ns {
			if i == 0 && layout != layoutShards {
				specs = append(specs, "+"+n.local+name+"*:"+n.tracking+name+"*")
			} else {
				specs = append(specs, "+"+n.local+name+"/*:"+n.tracking+name+"/*")
			}
		}
	}
	return specs
}

func (s *Store) checkSessions(sessions []string) error {
	for _, sess := range sessions {
		if err := snapshot.CheckName("session", sess); err != nil {
			return &snapshot.InputError{Path: "session", Msg: err.Error()}
		}
	}
	return nil
}

// Push sends sessions and their checkpoints to a remote. A session that
// diverged there is refused, as git refuses a branch: pull first. With
// ForceWithLease a session this clone pruned replaces the remote's while
// the remote is as this clone last saw it. The remote-tracking refs then
// hold what was sent, as a fetch would.
//
// Sessions go into the remote's shards (see ShardPrefix), unless it still
// keeps one ref per session, as last fetched: then they go there too,
// until git snap migrate --remote moves it. A clone that has not fetched
// from the remote yet fetches first, to learn which.
func (s *Store) Push(ctx context.Context, o RemoteOptions) error {
	if err := s.checkSessions(o.Sessions); err != nil {
		return err
	}
	if o.Delete && len(o.Sessions) == 0 {
		return &storage.OptionsError{Msg: "push --delete needs the sessions to remove from the remote"}
	}
	return s.holdRemote(ctx, o.remote(), func() error { return s.push(ctx, o) })
}

// push is Push, with the remote held.
func (s *Store) push(ctx context.Context, o RemoteOptions) error {
	layout, err := s.remoteLayout(o.remote())
	if err != nil {
		return err
	}
	if layout == layoutUnknown {
		if _, err := s.fetch(ctx, RemoteOptions{Remote: o.Remote, Progress: o.Progress}); err != nil {
			return err
		}
		if layout, err = s.remoteLayout(o.remote()); err != nil {
			return err
		}
	}
	if layout == layoutRefs {
		err = s.pushRefs(ctx, o)
	} else {
		err = s.pushShards(ctx, o)
	}
	if err != nil {
		return err
	}
	if o.Delete {
		return s.noteDeleted(ctx, o.remote(), o.Sessions)
	}
	return s.notePushed(ctx, o.remote(), o.Sessions)
}

// pushRefs pushes one ref per session, to a remote that keeps them so.
func (s *Store) pushRefs(ctx context.Context, o RemoteOptions) error {
	args := []string{"push", "--porcelain"}
	if o.Delete {
		var specs []string
		for _, name := range o.Sessions {
			seen, err := s.refs.Read(s.sharedNamespaces(o.remote())[0].tracking + name)
			if err != nil {
				return err
			}
			if seen.IsZero() {
				return errNotSeen(name)
			}
			args = append(args, "--force-with-lease="+s.SessionRef(name)+":"+seen.String())
			specs = append(specs, ":"+s.SessionRef(name))
		}
		return s.runGit(ctx, o.Progress, append(append(args, o.remote()), specs...)...)
	}
	if o.ForceWithLease {
		leases, err := s.leases(o.remote(), o.Sessions, false)
		if err != nil {
			return err
		}
		args = append(args, leases...)
	}
	return s.runGit(ctx, o.Progress, append(append(args, o.remote()), s.pushSpecs(o.Sessions)...)...)
}

// errNotSeen refuses to remove a session from a remote this clone never
// saw it on: there is nothing to hold a lease on.
func errNotSeen(session string) error {
	return &storage.OptionsError{Msg: fmt.Sprintf("push --delete: %s: the remote had no such session when this clone last fetched it; git snap fetch, then try again", session)}
}

// noteDeleted removes the remote-tracking refs of sessions a push removed
// from the remote.
func (s *Store) noteDeleted(ctx context.Context, remote string, sessions []string) error {
	track := s.sharedNamespaces(remote)[0].tracking
	for _, name := range sessions {
		old, err := s.refs.Read(track + name)
		if err != nil {
			return err
		}
		if old.IsZero() {
			continue
		}
		if err := s.refs.Update(ctx, track+name, old, storage.ID{}, "push --delete"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
	}
	return nil
}

// pushed is a ref a push sends and its remote-tracking ref here.
type pushed struct {
	ref, tracking string
	id            storage.ID // the ref's value here
}

// pushedRefs lists the sessions and checkpoints a push sends, with the
// remote-tracking refs a fetch keeps them under.
func (s *Store) pushedRefs(remote string, sessions []string) ([]pushed, error) {
	var out []pushed
	for _, ns := range s.sharedNamespaces(remote) {
		refs, err := s.refs.List(ns.local)
		if err != nil {
			return nil, err
		}
		for ref, id := range refs {
			name := strings.TrimPrefix(ref, ns.local)
			session, _, _ := strings.Cut(name, "/")
			if len(sessions) == 0 || contains(sessions, session) {
				out = append(out, pushed{ref, ns.tracking + name, id})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref < out[j].ref })
	return out, nil
}

// leases are git push's --force-with-lease=<ref>:<expect> for every
// session and checkpoint a push sends (or every checkpoint): each may be replaced only while
// the remote has what this clone last saw there (nothing, when it saw
// none).
func (s *Store) leases(remote string, sessions []string, checkpointsOnly bool) ([]string, error) {
	refs, err := s.pushedRefs(remote, sessions)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range refs {
		if checkpointsOnly && strings.HasPrefix(p.ref, s.prefix) {
			continue
		}
		seen, err := s.refs.Read(p.tracking)
		if err != nil {
			return nil, err
		}
		expect := ""
		if !seen.IsZero() {
			expect = seen.String()
		}
		out = append(out, "--force-with-lease="+p.ref+":"+expect)
	}
	return out, nil
}

// notePushed sets the remote-tracking refs to what a push just sent, as
// git does for the branches it tracks: the next lease is on what the
// remote has now.
func (s *Store) notePushed(ctx context.Context, remote string, sessions []string) error {
	sent, err := s.pushedRefs(remote, sessions)
	if err != nil {
		return err
	}
	moved := 0
	for _, p := range sent {
		old, err := s.refs.Read(p.tracking)
		if err != nil {
			return err
		}
		if old == p.id {
			continue
		}
		if err := s.refs.Update(ctx, p.tracking, old, p.id, "push"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return err
		}
		moved++
	}
	return s.packManyRefs(ctx, moved)
}

// Fetch brings a remote's sessions into refs/remotes/<remote>/snap/, and
// fails when a session named is not there.
func (s *Store) Fetch(ctx context.Context, o RemoteOptions) error {
	if err := s.checkSessions(o.Sessions); err != nil {
		return err
	}
	return s.holdRemote(ctx, o.remote(), func() error {
		_, err := s.fetch(ctx, o)
		return err
	})
}

// fetch is Fetch, with the remote held. It returns the remote-tracking
// refs of sessions its shards moved, with where they were before.
func (s *Store) fetch(ctx context.Context, o RemoteOptions) (map[string]storage.ID, error) {
	layout, err := s.remoteLayout(o.remote())
	if err != nil {
		return nil, err
	}
	before, err := s.refs.List(shardTracking(o.remote()))
	if err != nil {
		return nil, err
	}
	specs := s.fetchSpecs(o.remote(), o.Sessions, layout)
	if err := s.runGit(ctx, o.Progress, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", o.remote()}, specs...)...); err != nil {
		return nil, err
	}
	moved, err := s.expandShards(ctx, o.remote(), before)
	if err != nil {
		return nil, errors.Join(err, s.restoreShards(ctx, o.remote(), before))
	}
	return moved, s.checkFetched(o.remote(), o.Sessions)
}

// checkFetched fails when a session asked for is not at the remote.
func (s *Store) checkFetched(remote string, sessions []string) error {
	if len(sessions) == 0 {
		return nil
	}
	tips, err := s.RemoteTips(remote)
	if err != nil {
		return err
	}
	for _, name := range sessions {
		if _, ok := tips[name]; !ok {
			return &IncomingError{"remote " + remote, fmt.Sprintf("it has no session %s; git snap fetch %s lists the sessions it has", name, remote)}
		}
	}
	return nil
}

func wrapRemote(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if refs := rejected(msg); strings.Contains(msg, "stale info") {
		return fmt.Errorf("%s: %s: the remote moved since this clone last fetched it; git snap pull, look, and push --force-with-lease again: %w", op, refs, err)
	} else if strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "[rejected]") {
		return fmt.Errorf("%s: %s: the remote has snapshots this clone lacks; git snap pull first (or, when this clone pruned it, git snap push --force-with-lease): %w", op, refs, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// rejected names the refs git push --porcelain reports refused
// ("!<tab>src:dst<tab>[rejected] …"), so that the message says which.
func rejected(msg string) string {
	var names []string
	for _, line := range strings.Split(msg, "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) >= 3 && fields[0] == "!" {
			_, dst, _ := strings.Cut(fields[1], ":")
			names = append(names, dst)
		}
	}
	if len(names) == 0 {
		return "a session"
	}
	return strings.Join(names, ", ")
}

// remoteWait bounds the wait for another fetch or push of the same
// remote from this repository: a first fetch of 100k sessions takes
// minutes.
const remoteWait = 30 * time.Minute

// holdRemote runs f while no other git-snap fetches from or pushes to
// remote from this repository: two git fetches at once fail on each
// other's ref locks, and two pushes would lease on each other's shards.
func (s *Store) holdRemote(ctx context.Context, remote string, f func() error) error {
	wait, cancel := context.WithTimeout(ctx, remoteWait)
	defer cancel()
	return s.refs.Hold(wait, filepath.Join(s.paths.CommonDir, "snap", "remote-"+trackingName(remote)), f)
}

// ErrNoGit means the git binary, which sharing and packing use, is not
// installed.
var ErrNoGit = errors.New("git is not installed (or not on PATH)")

// gitBinary finds git, or says what needs it: git-snap shares and packs
// through git itself, with the user's credentials, ssh config and
// transports, rather than link a second implementation of them into
// every hook call.
func gitBinary(op string) (string, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%s: %w; git snap %s runs git, so install git and try again", op, ErrNoGit, op)
	}
	return path, nil
}

// runGit runs the git binary on this repository.
func (s *Store) runGit(ctx context.Context, progress io.Writer, args ...string) error {
	git, err := gitBinary(args[0])
	if err != nil {
		return err
	}
	if progress != nil { // git shows none on a pipe unless asked
		args = append([]string{args[0], "--progress"}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, git, append([]string{"--git-dir=" + s.paths.GitDir}, args...)...)
	if s.paths.WorkTree != "" {
		cmd.Dir = s.paths.WorkTree
	} else {
		cmd.Dir = s.paths.GitDir
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, progress)
	}
	out, err := cmd.Output()
	defer s.st.reload()
	if err != nil {
		msg := strings.TrimSpace(stderr.String() + "\n" + string(out))
		return wrapRemote(args[0], fmt.Errorf("git %s: %v\n%s", args[0], err, msg))
	}
	return nil
}

// RemoteTips lists the sessions fetched from a remote: name → tip.
func (s *Store) RemoteTips(remote string) (map[string]storage.ID, error) {
	prefix := "refs/remotes/" + trackingName(remote) + "/snap/"
	refs, err := s.refs.List(prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]storage.ID{}
	for ref, h := range refs {
		out[strings.TrimPrefix(ref, prefix)] = h
	}
	return out, nil
}
