package gitstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
)

// RemoteOptions name what to share and with whom.
type RemoteOptions struct {
	Remote   string    // a remote's name or a URL; "origin" when empty
	Sessions []string  // all sessions when empty
	Progress io.Writer // git's progress, or nil
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

// pushSpecs are the refspecs that send sessions and their checkpoints,
// and nothing else of the repository.
func (s *Store) pushSpecs(sessions []string) []string {
	if len(sessions) == 0 {
		return []string{s.prefix + "*:" + s.prefix + "*", TagPrefix + "*:" + TagPrefix + "*"}
	}
	var specs []string
	for _, sess := range sessions {
		specs = append(specs, s.SessionRef(sess)+":"+s.SessionRef(sess), TagPrefix+sess+"/*:"+TagPrefix+sess+"/*")
	}
	return specs
}

// fetchSpecs bring a remote's sessions and checkpoints into
// remote-tracking refs; local sessions change only on pull.
func (s *Store) fetchSpecs(remote string, sessions []string) []string {
	track := "refs/remotes/" + trackingName(remote) + "/"
	if len(sessions) == 0 {
		return []string{"+" + s.prefix + "*:" + track + "snap/*", "+" + TagPrefix + "*:" + track + "snap-checkpoints/*"}
	}
	var specs []string
	for _, sess := range sessions {
		specs = append(specs, "+"+s.SessionRef(sess)+":"+track+"snap/"+sess, "+"+TagPrefix+sess+"/*:"+track+"snap-checkpoints/"+sess+"/*")
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
// diverged there is refused by the remote, as git refuses a branch: pull
// first.
func (s *Store) Push(ctx context.Context, o RemoteOptions) error {
	if err := s.checkSessions(o.Sessions); err != nil {
		return err
	}
	specs := s.pushSpecs(o.Sessions)
	return s.runGit(ctx, o.Progress, append([]string{"push", "--porcelain", o.remote()}, specs...)...)
}

// Fetch brings a remote's sessions into refs/remotes/<remote>/snap/.
func (s *Store) Fetch(ctx context.Context, o RemoteOptions) error {
	if err := s.checkSessions(o.Sessions); err != nil {
		return err
	}
	specs := s.fetchSpecs(o.remote(), o.Sessions)
	return s.runGit(ctx, o.Progress, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", o.remote()}, specs...)...)
}

func wrapRemote(op string, err error) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "[rejected]") {
		return fmt.Errorf("%s: the remote's session has snapshots this one lacks; git snap pull first: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
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
func (s *Store) RemoteTips(remote string) (map[string]plumbing.Hash, error) {
	prefix := "refs/remotes/" + trackingName(remote) + "/snap/"
	refs, err := s.refs.List(prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]plumbing.Hash{}
	for ref, h := range refs {
		out[strings.TrimPrefix(ref, prefix)] = h
	}
	return out, nil
}
