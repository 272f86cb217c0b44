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

	gogit "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
)

// Transports a remote operation can use.
const (
	TransportAuto  = ""       // git when installed, else go-git
	TransportGit   = "git"    // the git binary: the user's credentials, ssh config and speed
	TransportGoGit = "go-git" // go-git's own transport
)

// RemoteOptions name what to share and with whom.
type RemoteOptions struct {
	Remote    string   // a remote's name or a URL; "origin" when empty
	Sessions  []string // all sessions when empty
	Transport string
	Progress  io.Writer // git's progress, or nil
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
	if s.useGit(o.Transport) {
		return s.runGit(ctx, o.Progress, append([]string{"push", "--porcelain", o.remote()}, specs...)...)
	}
	repo, err := s.goGitRepo()
	if err != nil {
		return err
	}
	po := &gogit.PushOptions{RemoteName: o.remote(), RefSpecs: refSpecs(specs), Progress: o.Progress}
	if isURL(o.remote()) {
		po.RemoteName, po.RemoteURL = "", o.remote()
	}
	err = repo.PushContext(ctx, po)
	if errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		return nil
	}
	return wrapRemote("push", err)
}

// Fetch brings a remote's sessions into refs/remotes/<remote>/snap/.
func (s *Store) Fetch(ctx context.Context, o RemoteOptions) error {
	if err := s.checkSessions(o.Sessions); err != nil {
		return err
	}
	specs := s.fetchSpecs(o.remote(), o.Sessions)
	if s.useGit(o.Transport) {
		return s.runGit(ctx, o.Progress, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", o.remote()}, specs...)...)
	}
	repo, err := s.goGitRepo()
	if err != nil {
		return err
	}
	fo := &gogit.FetchOptions{RemoteName: o.remote(), RefSpecs: refSpecs(specs), Tags: gogit.NoTags, Progress: o.Progress}
	if isURL(o.remote()) {
		fo.RemoteName, fo.RemoteURL = "", o.remote()
	}
	err = repo.FetchContext(ctx, fo)
	if errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		err = nil
	}
	s.st.reload() // new packs arrived
	return wrapRemote("fetch", err)
}

func refSpecs(specs []string) []gitconfig.RefSpec {
	out := make([]gitconfig.RefSpec, len(specs))
	for i, s := range specs {
		out[i] = gitconfig.RefSpec(s)
	}
	return out
}

func isURL(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.Contains(s, "@")
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

func (s *Store) useGit(transport string) bool {
	switch transport {
	case TransportGit:
		return true
	case TransportGoGit:
		return false
	}
	_, err := exec.LookPath("git")
	return err == nil
}

// runGit runs the git binary on this repository.
func (s *Store) runGit(ctx context.Context, progress io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + s.paths.GitDir}, args...)...)
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

// goGitRepo opens the repository with go-git, for its transport.
func (s *Store) goGitRepo() (*gogit.Repository, error) {
	repo, err := gogit.Open(s.st.Storage, nil)
	if err != nil {
		return nil, fmt.Errorf("open the repository with go-git (git is not installed): %w", err)
	}
	return repo, nil
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
