package gitsnap

import (
	"bytes"
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
	ID      storage.ID
	Subject string
}

// CodeRange is a range of the code's commits: those HEAD has and BASE
// has not, as git log BASE..HEAD lists them.
type CodeRange struct {
	Spec       string // as given, or "UPSTREAM..HEAD" when it was made
	Base, Head storage.ID
	Commits    []Commit // newest first
	code       codeRepo // where git read them
}

// codeRepo runs git on the code's repository: from a directory, as the
// user's own git finds it, or, for a store with no work tree, on the
// store's git dir.
type codeRepo struct{ dir, gitDir string }

// CommitRange reads a range of commits with git, in the repository dir
// is in ("": the store's own): "BASE..HEAD", "BASE.." or "BASE" (both
// to HEAD), or "" for the current branch's upstream to HEAD. A store
// kept apart from the code (init --bare, --store) reads the code's
// repository from dir. A range that names no commit is a PRError.
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
		base, head = b, cmpOr(h, "HEAD")
	}
	if base == "" {
		up, err := code.git(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
		if err != nil {
			return CodeRange{}, &PRError{"the current branch has no upstream to compare with: give the range, as in git snap pr main..HEAD"}
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

// git runs git on the code's repository and returns what it printed.
func (c codeRepo) git(ctx context.Context, args ...string) (string, error) {
	return c.gitIn(ctx, "", args...)
}

// gitIn is git with input on its stdin.
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

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Linked is a session some of whose snapshots were taken at commits of
// a range: their header's code commit (the Snap-Code trailer) is one,
// or became one when an amend or a rebase rewrote it (the post-rewrite
// hook's record), or has the same patch (git patch-id) as one: a
// cherry-pick, a rebase made elsewhere, or a squash merge of the commits
// the session's snapshots name; or a session that wrote lines the range
// added (a squash merge of a branch a person's commits are on too, or of
// several sessions' commits).
type Linked struct {
	Session string
	// Tip is the newest of those snapshots: the session as it was at
	// the range's last commit it saw.
	Tip storage.Entry
	// Snapshots counts them.
	Snapshots int
	// Commits are the range's commits they were taken at, newest first.
	Commits []storage.ID
	// By says how the link was found: "commit" (the snapshots name a
	// commit of the range), "rewrite" (a commit since rewritten into
	// one), "patch-id" (a commit, or the commits together, with the same
	// patch as one), "lines" (the session wrote lines the range added:
	// Lines).
	By string
	// Fetched says the session is only in a remote's refs, not a local
	// one (git snap fetch brought it).
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
		return nil, &PRError{"this repository has no sessions: nothing links to the commits of " + cr.Spec + " (git snap fetch brings a remote's; git snap install records an agent's)"}
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
	var unlinked []pendingLink // sessions to match by patch
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
	// Patches are matched only once every session not linked otherwise
	// is known, so that git is asked about all their commits at once.
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

// pendingLink is a session none of whose code commits is (or was
// rewritten into) one of the range's: it may still match one by patch.
type pendingLink struct {
	l      Linked
	byCode map[storage.ID][]storage.Entry
}

// snapshotsByCode reads a session's snapshots, grouped by the code
// commit their header names; those naming none are left out, as nothing
// can link them to a commit.
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

// linkByCommit maps each code commit that is one of the range's, or was
// rewritten into one, to that commit's index in the range. by is
// "commit" when some code commit is itself in the range, else "rewrite"
// when some link went through a rewrite, else "": a direct link is the
// stronger claim, so it wins whatever order the map is walked in.
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

// withSnapshots completes l from the snapshots taken at the code commits
// at links: their newest as the tip, their count, and the range's
// commits they link to, newest first (the range's order).
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

// noLinkedSession is the PRError for a range no session links to; it
// names the likely causes, since the user has no other way to see why.
func noLinkedSession(cr CodeRange, sessions int) error {
	commits := fmt.Sprintf("the %d commits", len(cr.Commits))
	if len(cr.Commits) == 1 {
		commits = "the commit"
	}
	return &PRError{fmt.Sprintf("none of the %d sessions has a snapshot taken at %s of %s, or at a commit rewritten into one or with the same patch (a snapshot links to the commit HEAD was on; git snap prune may have removed those that did)",
		sessions, commits, cr.Spec)}
}

// patchMatcher matches commits by their patches (git patch-id
// --stable): the range's, read once, against a session's.
type patchMatcher struct {
	cr       CodeRange
	order    map[storage.ID]int
	rewrites gitstore.Rewrites
	ids      map[string]int // patch id → index of the range commit
	// wanted are the commits the sessions' code commits are now (after
	// rewrites), to ask git once which of them the base lacks; topo is
	// git's answer, newest first, once asked.
	wanted map[storage.ID]bool
	topo   []storage.ID
	asked  bool
}

// add notes a session's code commits, to be matched later.
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

// ask lists, in one git call, the commits added that exist and that the
// range's base does not hold, newest first.
func (pm *patchMatcher) ask(ctx context.Context) error {
	if pm.asked {
		return nil
	}
	pm.asked = true
	var in strings.Builder // on stdin: as many as there are, with no bound on a command line
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

// match links a session's code commits to the range's by patch: each
// commit (or what it was rewritten into) that is not in the range's base,
// alone (a cherry-pick, a rebase elsewhere), else all of them together,
// from the oldest's parent to the newest (a squash merge).
func (pm *patchMatcher) match(ctx context.Context, byCode map[storage.ID][]storage.Entry) (map[storage.ID]int, error) {
	if err := pm.ask(ctx); err != nil {
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

// present maps each commit a session's code commits became (after
// rewrites) to the code commits that became it, and lists those of them
// ask found outside the range's base, newest first: only those can carry
// a patch the range holds.
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
// sessions, and only when some session needs them: it runs git log -p
// over the whole range.
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

// matchEach links the code commits whose present commit alone has the
// patch of one of the range's: a cherry-pick, or a rebase made elsewhere.
// The present commits' patches are read in one git call.
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

// matchSquash links all the code commits to one of the range's when the
// present commits together, from the oldest's parent to the newest, have
// its patch: a squash merge of the session's commits.
func (pm *patchMatcher) matchSquash(ctx context.Context, present []storage.ID, now map[storage.ID][]storage.ID) (map[storage.ID]int, error) {
	oldest, newest := present[len(present)-1], present[0]
	diff, err := pm.cr.code.git(ctx, "diff", "--no-color", "--no-ext-diff", oldest.String()+"^", newest.String(), "--")
	if err != nil {
		return nil, nil // the oldest has no parent: no squash to match
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

// patchID is a patch's id as git patch-id gives it, with its commit.
type patchID struct {
	id     string
	commit storage.ID
}

// patchIDs runs git patch-id --stable on patches, each after a line
// "commit ID".
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
