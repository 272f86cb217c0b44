package gitsnap

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/usage"
)

// PRError is a pull request's range or sessions that cannot make a
// summary: a range that names no commit, a repository with no sessions,
// commits no session's snapshots are linked to. Nothing is to be
// posted; the user's input is what to change (exit status 2).
type PRError struct{ Msg string }

// Error says what is wrong and what to do.
func (e *PRError) Error() string { return e.Msg }

// UserError marks it as the caller's to correct.
func (e *PRError) UserError() {}

// Commit is a commit of the code, as a pull request lists it.
type Commit struct {
	ID      plumbing.Hash
	Subject string
}

// CodeRange is a range of the code's commits: those HEAD has and BASE
// has not, as git log BASE..HEAD lists them.
type CodeRange struct {
	Spec       string // as given, or "UPSTREAM..HEAD" when it was made
	Base, Head plumbing.Hash
	Commits    []Commit // newest first
}

// CommitRange reads a range of commits with git: "BASE..HEAD", "BASE.."
// or "BASE" (both to HEAD), or "" for the current branch's upstream to
// HEAD. A range that names no commit is a PRError.
func (r *Repository) CommitRange(ctx context.Context, spec string) (CodeRange, error) {
	base, head := spec, "HEAD"
	if b, h, ok := strings.Cut(spec, ".."); ok {
		if strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
			return CodeRange{}, &PRError{fmt.Sprintf("range %q: write it as BASE..HEAD (main..HEAD), two commits", spec)}
		}
		base, head = b, cmpOr(h, "HEAD")
	}
	if base == "" {
		up, err := r.git(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
		if err != nil {
			return CodeRange{}, &PRError{"the current branch has no upstream to compare with: give the range, as in git snap pr main..HEAD"}
		}
		base = strings.TrimSpace(up)
	}
	cr := CodeRange{Spec: base + ".." + head}
	for _, end := range []struct {
		rev string
		id  *plumbing.Hash
	}{{base, &cr.Base}, {head, &cr.Head}} {
		if strings.HasPrefix(end.rev, "-") {
			return cr, &PRError{fmt.Sprintf("range %s: %q is not a revision", cr.Spec, end.rev)}
		}
		out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", end.rev+"^{commit}")
		if err != nil {
			if ctx.Err() != nil {
				return cr, ctx.Err()
			}
			return cr, &PRError{fmt.Sprintf("range %s: %s names no commit of this repository", cr.Spec, end.rev)}
		}
		*end.id = plumbing.NewHash(strings.TrimSpace(out))
	}
	out, err := r.git(ctx, "log", "--no-show-signature", "--format=%H%x00%s", cr.Base.String()+".."+cr.Head.String())
	if err != nil {
		return cr, fmt.Errorf("list the commits of %s: %w", cr.Spec, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, subject, ok := strings.Cut(line, "\x00")
		if ok {
			cr.Commits = append(cr.Commits, Commit{plumbing.NewHash(id), subject})
		}
	}
	if len(cr.Commits) == 0 {
		return cr, &PRError{fmt.Sprintf("range %s names no commit: %s has every commit of %s", cr.Spec, base, head)}
	}
	return cr, nil
}

// git runs git on the repository and returns what it printed.
func (r *Repository) git(ctx context.Context, args ...string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], gitstore.ErrNoGit)
	}
	p := r.Paths()
	cmd := exec.CommandContext(ctx, git, append([]string{"--git-dir=" + p.GitDir}, args...)...)
	cmd.Dir = p.GitDir
	if p.WorkTree != "" {
		cmd.Dir = p.WorkTree
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Linked is a session some of whose snapshots were taken at commits of
// a range: their header's code commit (the Snap-Code trailer) is one.
type Linked struct {
	Session string
	// Tip is the newest of those snapshots: the session as it was at
	// the range's last commit it saw.
	Tip gitstore.Entry
	// Snapshots counts them.
	Snapshots int
	// Commits are the range's commits they were taken at, newest first.
	Commits []plumbing.Hash
	// Fetched says the session is only in a remote's refs, not a local
	// one (git snap fetch brought it).
	Fetched bool
}

// LinkedSessions finds the sessions, local and fetched, with snapshots
// taken at the range's commits, the one with the newest such snapshot
// first. A repository with no sessions is a PRError, and so are commits
// no session is linked to; those errors say why.
func (r *Repository) LinkedSessions(ctx context.Context, cr CodeRange) ([]Linked, error) {
	tips, err := usage.Sessions(ctx, r.Store)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	if len(tips) == 0 {
		return nil, &PRError{"this repository has no sessions: nothing links to the commits of " + cr.Spec + " (git snap fetch brings a remote's; git snap install records an agent's)"}
	}
	order := map[string]int{}
	for i, c := range cr.Commits {
		order[c.ID.String()] = i
	}
	local, err := r.SessionTips(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Linked
	for _, tip := range tips {
		l := Linked{Session: tip.Header.Session}
		_, isLocal := local[l.Session]
		l.Fetched = !isLocal
		seen := map[int]bool{}
		err := r.Walk(ctx, []plumbing.Hash{tip.ID}, func(e gitstore.Entry) error {
			i, ok := order[strings.ToLower(e.Header.Code)]
			if !ok {
				return nil
			}
			if l.Snapshots == 0 || e.Header.Seq > l.Tip.Header.Seq {
				l.Tip = e
			}
			l.Snapshots++
			seen[i] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read session %s: %w", l.Session, err)
		}
		if l.Snapshots == 0 {
			continue
		}
		for _, i := range slices.Sorted(maps.Keys(seen)) {
			l.Commits = append(l.Commits, cr.Commits[i].ID)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		commits := fmt.Sprintf("the %d commits", len(cr.Commits))
		if len(cr.Commits) == 1 {
			commits = "the commit"
		}
		return nil, &PRError{fmt.Sprintf("none of the %d sessions has a snapshot taken at %s of %s (a snapshot links to the commit HEAD was on; git snap prune may have removed those that did)",
			len(tips), commits, cr.Spec)}
	}
	slices.SortStableFunc(out, func(a, b Linked) int {
		if c := b.Tip.Header.Time.Compare(a.Tip.Header.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Session, b.Session)
	})
	return out, nil
}
