package gitsnap

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/usage"
)

// PRError reports that a pull request's range or sessions cannot produce
// a summary: a range that contains no commit, a repository with no
// sessions, or commits that no session's snapshots are linked to.
// Nothing should be posted; the user must change the input (exit status
// 2).
type PRError struct{ Msg string }

// Error says what is wrong and what to do.
func (e *PRError) Error() string { return e.Msg }

// UserError marks the error as one the caller must fix.
func (e *PRError) UserError() {}

// Commit is a commit of the code, as a pull request lists it.
type Commit struct {
	ID      storage.ID
	Subject string
}

// CodeRange is a range of the code's commits: those reachable from HEAD
// but not from BASE, as git log BASE..HEAD lists them.
type CodeRange struct {
	Spec       string // as given, or "UPSTREAM..HEAD" when it was derived
	Base, Head storage.ID
	Commits    []Commit // newest first
	code       codeRepo // the repository git read them from
}

// codeRepo runs git on the code's repository: from a directory, where
// git finds the repository as the user's own git would, or, for a store
// with no work tree, on the store's git dir.
type codeRepo struct{ dir, gitDir string }

// CommitRange reads a range of commits with git, in the repository that
// contains dir ("" means the store's own repository). spec is
// "BASE..HEAD", "BASE.." or "BASE" (the last two meaning BASE..HEAD), or
// "" for the current branch's upstream to HEAD. A store kept separate
// from the code (init --bare, --store) reads the code's repository from
// dir. A range that contains no commit is a PRError.
func (r *Repository) CommitRange(ctx context.Context, dir, spec string) (CodeRange, error) {
	code := codeRepo{dir: dir}
	if p := r.Paths(); dir == "" && p.WorkTree != "" {
		code.dir = p.WorkTree
	} else if dir == "" {
		code = codeRepo{dir: p.GitDir, gitDir: p.GitDir}
	}
	base, head := spec, "HEAD"
	if b, h, ok := strings.Cut(spec, ".."); ok {
		if strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
			return CodeRange{}, &PRError{fmt.Sprintf("range %q: write it as BASE..HEAD (main..HEAD), two commits", spec)}
		}
		base, head = b, cmp.Or(h, "HEAD")
	}
	if base == "" {
		up, err := code.git(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
		if err != nil {
			return CodeRange{}, &PRError{"the current branch has no upstream to compare with; give the range, as in git snap pr main..HEAD"}
		}
		base = strings.TrimSpace(up)
	}
	cr := CodeRange{Spec: base + ".." + head, code: code}
	for _, end := range []struct {
		rev string
		id  *storage.ID
	}{{base, &cr.Base}, {head, &cr.Head}} {
		if strings.HasPrefix(end.rev, "-") {
			return cr, &PRError{fmt.Sprintf("range %s: %q is not a revision", cr.Spec, end.rev)}
		}
		out, err := code.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", end.rev+"^{commit}")
		if err != nil {
			if ctx.Err() != nil {
				return cr, ctx.Err()
			}
			return cr, &PRError{fmt.Sprintf("range %s: %s names no commit of this repository", cr.Spec, end.rev)}
		}
		*end.id = storage.NewID(strings.TrimSpace(out))
	}
	out, err := code.git(ctx, "log", "--no-show-signature", "--format=%H%x00%s", cr.Base.String()+".."+cr.Head.String())
	if err != nil {
		return cr, fmt.Errorf("list the commits of %s: %w", cr.Spec, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, subject, ok := strings.Cut(line, "\x00")
		if ok {
			cr.Commits = append(cr.Commits, Commit{storage.NewID(id), subject})
		}
	}
	if len(cr.Commits) == 0 {
		return cr, &PRError{fmt.Sprintf("range %s names no commit: %s has every commit of %s", cr.Spec, base, head)}
	}
	return cr, nil
}

// git runs git on the code's repository and returns its output.
func (c codeRepo) git(ctx context.Context, args ...string) (string, error) {
	return c.gitIn(ctx, "", args...)
}

// gitIn is like git, with input on git's stdin.
func (c codeRepo) gitIn(ctx context.Context, input string, args ...string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], gitstore.ErrNoGit)
	}
	if c.gitDir != "" {
		args = append([]string{"--git-dir=" + c.gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = c.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Linked is a session with snapshots that were saved at commits of a
// range. A snapshot is linked to a commit of the range when its header's
// code commit (the Snap-Code trailer) is that commit, or was rewritten
// into it by an amend or a rebase (as recorded by the post-rewrite
// hook), or has the same patch (git patch-id) as that commit: a
// cherry-pick, a rebase made elsewhere, or a squash merge of the commits
// the session's snapshots name; or a session that wrote lines the range
// added (a squash merge of a branch a person's commits are on too, or of
// several sessions' commits).
type Linked struct {
	Session string
	// Tip is the newest of the linked snapshots: the session as it was
	// at the last commit of the range that it saw.
	Tip storage.Entry
	// Snapshots is the number of linked snapshots.
	Snapshots int
	// Commits lists the range's commits that the snapshots were saved at,
	// newest first.
	Commits []storage.ID
	// By says how the link was found: "commit" (the snapshots name a
	// commit of the range), "rewrite" (a commit since rewritten into
	// one), "patch-id" (a commit, or the commits together, with the same
	// patch as one), "lines" (the session wrote lines the range added:
	// Lines).
	By string
	// Fetched reports whether the session exists only in a remote's
	// refs, not locally (git snap fetch brought it).
	Fetched bool
	// Lines are the lines of the range the session wrote that its last
	// commit still holds (see RangeLines); zero when they were not
	// counted.
	Lines provenance.SessionTally
}

// LinkedSessions finds the sessions, local and fetched, with snapshots
// taken at the range's commits, or that wrote lines of it (lines, from
// RangeLines; nil: none are looked for), the one with the newest such
// snapshot first. A repository with no sessions is a PRError, and so
// are commits no session is linked to; those errors say why.
func (r *Repository) LinkedSessions(ctx context.Context, cr CodeRange, lines *provenance.Changes) ([]Linked, error) {
	tips, err := usage.Sessions(ctx, r.store)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	if len(tips) == 0 {
		return nil, &PRError{"this repository has no sessions, so none is linked to the commits of " + cr.Spec + " (run git snap fetch to get a remote's sessions, or git snap install to record an agent's)"}
	}
	rewrites, err := r.ReadRewrites(ctx)
	if err != nil {
		return nil, err
	}
	local, err := r.store.SessionTips(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	order := map[storage.ID]int{}
	for i, c := range cr.Commits {
		order[c.ID] = i
	}
	pm := &patchMatcher{cr: cr, order: order, rewrites: rewrites}
	var out []Linked
	var unlinked []pendingLink // sessions still to be matched by patch
	for _, tip := range tips {
		l := Linked{Session: tip.Header.Session}
		_, isLocal := local[l.Session]
		l.Fetched = !isLocal
		byCode, err := r.snapshotsByCode(ctx, tip)
		if err != nil {
			return nil, fmt.Errorf("read session %s: %w", l.Session, err)
		}
		var at map[storage.ID]int
		at, l.By = linkByCommit(byCode, rewrites, order)
		switch {
		case len(at) > 0:
			out = append(out, l.withSnapshots(cr, byCode, at))
		case len(byCode) > 0:
			unlinked = append(unlinked, pendingLink{l, byCode})
			pm.add(byCode)
		}
	}
	// Patches are matched only after all sessions not linked otherwise
	// are known, so that git is asked about all their commits in one call.
	for _, p := range unlinked {
		at, err := pm.match(ctx, p.byCode)
		if err != nil {
			return nil, fmt.Errorf("match session %s by patch: %w", p.l.Session, err)
		}
		if len(at) > 0 {
			p.l.By = "patch-id"
			out = append(out, p.l.withSnapshots(cr, p.byCode, at))
		}
	}
	if out, err = r.linkByLines(ctx, out, lines, cr, local); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, noLinkedSession(cr, len(tips))
	}
	slices.SortStableFunc(out, func(a, b Linked) int {
		if c := b.Tip.Header.Time.Compare(a.Tip.Header.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Session, b.Session)
	})
	return out, nil
}

// pendingLink is a session none of whose code commits is in the range
// or was rewritten into a commit of the range. It may still match a
// commit of the range by patch.
type pendingLink struct {
	l      Linked
	byCode map[storage.ID][]storage.Entry
}

// snapshotsByCode reads a session's snapshots, grouped by the code
// commit their header names. Snapshots that name no commit are left out,
// because nothing can link them to a commit.
func (r *Repository) snapshotsByCode(ctx context.Context, tip storage.Entry) (map[storage.ID][]storage.Entry, error) {
	byCode := map[storage.ID][]storage.Entry{}
	err := r.Walk(ctx, []storage.ID{tip.ID}, func(e storage.Entry) error {
		if storage.IsID(e.Header.Code) {
			code := storage.NewID(e.Header.Code)
			byCode[code] = append(byCode[code], e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return byCode, nil
}

// linkByCommit maps each code commit that is in the range, or was
// rewritten into a commit of the range, to that commit's index in the
// range. by is "commit" when some code commit is itself in the range,
// otherwise "rewrite" when some link went through a rewrite, otherwise
// "". A direct link is the stronger claim, so it takes precedence
// whatever order the map is iterated in.
func linkByCommit(byCode map[storage.ID][]storage.Entry, rewrites gitstore.Rewrites, order map[storage.ID]int) (at map[storage.ID]int, by string) {
	at = map[storage.ID]int{}
	for code := range byCode {
		for k, h := range rewrites.Descendants(code) {
			if i, ok := order[h]; ok {
				at[code] = i
				if k == 0 || by == "" {
					by = map[bool]string{true: "commit", false: "rewrite"}[k == 0]
				}
				break
			}
		}
	}
	return at, by
}

// withSnapshots fills in l from the snapshots saved at the code commits
// that at links: the newest of them as Tip, their count, and the range's
// commits they link to, newest first (in the range's order).
func (l Linked) withSnapshots(cr CodeRange, byCode map[storage.ID][]storage.Entry, at map[storage.ID]int) Linked {
	seen := map[int]bool{}
	for code, i := range at {
		seen[i] = true
		for _, e := range byCode[code] {
			if l.Snapshots == 0 || e.Header.Seq > l.Tip.Header.Seq {
				l.Tip = e
			}
			l.Snapshots++
		}
	}
	for _, i := range slices.Sorted(maps.Keys(seen)) {
		l.Commits = append(l.Commits, cr.Commits[i].ID)
	}
	return l
}

// noLinkedSession returns the PRError for a range that no session is
// linked to. It names the likely causes, since the user has no other way
// to find out.
func noLinkedSession(cr CodeRange, sessions int) error {
	commits := fmt.Sprintf("the %d commits", len(cr.Commits))
	if len(cr.Commits) == 1 {
		commits = "the commit"
	}
	return &PRError{fmt.Sprintf("none of the %d sessions has a snapshot taken at %s of %s, or at a commit rewritten into one or with the same patch (a snapshot is linked to the commit HEAD was on when it was saved; git snap prune may have removed the snapshots that were linked)",
		sessions, commits, cr.Spec)}
}

// patchMatcher matches commits by their patches (git patch-id
// --stable): the range's patches, read once, against each session's.
type patchMatcher struct {
	cr       CodeRange
	order    map[storage.ID]int
	rewrites gitstore.Rewrites
	ids      map[string]int // patch id → index of the range commit
	// wanted holds the commits that the sessions' code commits are now
	// (after rewrites), so that git can be asked once which of them the
	// base lacks. topo holds git's answer, newest first, once listed is
	// set.
	wanted map[storage.ID]bool
	topo   []storage.ID
	listed bool
}

// add records a session's code commits, to be matched later.
func (pm *patchMatcher) add(byCode map[storage.ID][]storage.Entry) {
	if pm.wanted == nil {
		pm.wanted = map[storage.ID]bool{}
	}
	for code := range byCode {
		for _, h := range pm.rewrites.Latest(code) {
			pm.wanted[h] = true
		}
	}
}

// listOutsideBase lists, newest first and in one git call, the commits
// recorded by add that exist and are not reachable from the range's
// base.
func (pm *patchMatcher) listOutsideBase(ctx context.Context) error {
	if pm.listed {
		return nil
	}
	pm.listed = true
	var in strings.Builder // passed on stdin, which has no length limit, unlike a command line
	for h := range pm.wanted {
		in.WriteString(h.String() + "\n")
	}
	in.WriteString("^" + pm.cr.Base.String() + "\n")
	list, err := pm.cr.code.gitIn(ctx, in.String(), "rev-list", "--topo-order", "--ignore-missing", "--stdin")
	if err != nil {
		return err
	}
	for _, line := range strings.Fields(list) {
		if h := storage.NewID(line); pm.wanted[h] {
			pm.topo = append(pm.topo, h)
		}
	}
	return nil
}

// match links a session's code commits to the range's commits by patch.
// It first tries each commit (or the commit it was rewritten into) that
// is not in the range's base on its own (a cherry-pick, or a rebase
// elsewhere), and otherwise all of them together, from the oldest's
// parent to the newest (a squash merge).
func (pm *patchMatcher) match(ctx context.Context, byCode map[storage.ID][]storage.Entry) (map[storage.ID]int, error) {
	if err := pm.listOutsideBase(ctx); err != nil {
		return nil, err
	}
	now, present := pm.present(byCode)
	if len(present) == 0 {
		return nil, nil
	}
	if err := pm.readRangeIDs(ctx); err != nil {
		return nil, err
	}
	at, err := pm.matchEach(ctx, present, now)
	if err != nil || len(at) > 0 || len(present) < 2 {
		return at, err
	}
	return pm.matchSquash(ctx, present, now)
}

// present maps each commit that a session's code commits became (after
// rewrites) to the code commits that became it. It also lists, newest
// first, those of them that listOutsideBase found outside the range's
// base; only those can carry a patch that the range contains.
func (pm *patchMatcher) present(byCode map[storage.ID][]storage.Entry) (now map[storage.ID][]storage.ID, present []storage.ID) {
	now = map[storage.ID][]storage.ID{}
	for code := range byCode {
		for _, h := range pm.rewrites.Latest(code) {
			now[h] = append(now[h], code)
		}
	}
	for _, h := range pm.topo {
		if now[h] != nil {
			present = append(present, h)
		}
	}
	return now, present
}

// readRangeIDs reads the patch ids of the range's commits, once for all
// sessions and only when some session needs them, because it runs git
// log -p over the whole range.
func (pm *patchMatcher) readRangeIDs(ctx context.Context) error {
	if pm.ids != nil {
		return nil
	}
	log, err := pm.cr.code.git(ctx, "log", "-p", "--no-color", "--no-ext-diff", "--no-show-signature", "--format=commit %H", pm.cr.Base.String()+".."+pm.cr.Head.String(), "--")
	if err != nil {
		return err
	}
	pairs, err := pm.cr.code.patchIDs(ctx, log)
	if err != nil {
		return err
	}
	pm.ids = map[string]int{}
	for _, p := range pairs {
		if i, ok := pm.order[p.commit]; ok {
			pm.ids[p.id] = i
		}
	}
	return nil
}

// matchEach links the code commits whose present commit, on its own, has
// the same patch as a commit of the range: a cherry-pick, or a rebase
// made elsewhere. The present commits' patches are read in one git call.
func (pm *patchMatcher) matchEach(ctx context.Context, present []storage.ID, now map[storage.ID][]storage.ID) (map[storage.ID]int, error) {
	show := []string{"show", "-p", "--no-color", "--no-ext-diff", "--no-show-signature", "--format=commit %H"}
	for _, h := range present {
		show = append(show, h.String())
	}
	text, err := pm.cr.code.git(ctx, append(show, "--")...)
	if err != nil {
		return nil, err
	}
	each, err := pm.cr.code.patchIDs(ctx, text)
	if err != nil {
		return nil, err
	}
	at := map[storage.ID]int{}
	for _, p := range each {
		if j, ok := pm.ids[p.id]; ok {
			for _, code := range now[p.commit] {
				at[code] = j
			}
		}
	}
	return at, nil
}

// matchSquash links all the code commits to a commit of the range when
// the present commits together, from the oldest's parent to the newest,
// have the same patch as that commit: a squash merge of the session's
// commits.
func (pm *patchMatcher) matchSquash(ctx context.Context, present []storage.ID, now map[storage.ID][]storage.ID) (map[storage.ID]int, error) {
	oldest, newest := present[len(present)-1], present[0]
	diff, err := pm.cr.code.git(ctx, "diff", "--no-color", "--no-ext-diff", oldest.String()+"^", newest.String(), "--")
	if err != nil {
		return nil, nil // the oldest commit has no parent, so there is no squash to match
	}
	whole, err := pm.cr.code.patchIDs(ctx, "commit "+newest.String()+"\n"+diff)
	if err != nil || len(whole) == 0 {
		return nil, err
	}
	at := map[storage.ID]int{}
	if j, ok := pm.ids[whole[0].id]; ok {
		for _, h := range present {
			for _, code := range now[h] {
				at[code] = j
			}
		}
	}
	return at, nil
}

// patchID is a patch's id as git patch-id prints it, with its commit.
type patchID struct {
	id     string
	commit storage.ID
}

// patchIDs runs git patch-id --stable on patches, each of which follows
// a line "commit ID".
func (c codeRepo) patchIDs(ctx context.Context, patches string) ([]patchID, error) {
	out, err := c.gitIn(ctx, patches, "patch-id", "--stable")
	if err != nil {
		return nil, err
	}
	var ids []patchID
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, commit, ok := strings.Cut(line, " "); ok && storage.IsID(commit) {
			ids = append(ids, patchID{id, storage.NewID(commit)})
		}
	}
	return ids, nil
}

// linkByLines gives each linked session its lines of the range, and adds
// the sessions that wrote lines of it and are not linked otherwise: their
// newest edit counted as the tip, their edits as the snapshots, and the
// commits that brought their lines in.
func (r *Repository) linkByLines(ctx context.Context, out []Linked, lines *provenance.Changes, cr CodeRange, local map[string]storage.ID) ([]Linked, error) {
	if lines == nil {
		return out, nil
	}
	for _, st := range provenance.Count(lines.Files).Sessions {
		// Sessions are listed by name: one kept here and fetched too
		// counts its larger share (Count lists the larger first).
		if i := slices.IndexFunc(out, func(l Linked) bool { return l.Session == st.Session }); i >= 0 {
			if out[i].Lines.Lines == 0 {
				out[i].Lines = st
			}
			continue
		}
		tip, err := r.store.Entry(ctx, st.Latest)
		if err != nil {
			return nil, fmt.Errorf("read session %s: %w", st.Session, err)
		}
		_, isLocal := local[st.Session]
		l := Linked{Session: st.Session, Tip: tip, By: "lines", Fetched: !isLocal, Lines: st}
		edits, commits := map[storage.ID]bool{}, map[storage.ID]bool{}
		for _, f := range lines.Files {
			for _, ln := range f.Lines {
				if e := ln.Edit; e != nil && e.Session == st.Session && e.Remote == st.Remote {
					edits[e.Snapshot], commits[ln.Commit] = true, true
				}
			}
		}
		l.Snapshots = len(edits)
		for _, c := range cr.Commits {
			if commits[c.ID] {
				l.Commits = append(l.Commits, c.ID)
			}
		}
		out = append(out, l)
	}
	return out, nil
}
