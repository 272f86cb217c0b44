package codestate

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/internal/watchman"
)

// scanAndKeep runs git status and keeps what it says, with watchman's
// clock taken before it, so that a change made while git looks is
// listed again by the next call. Nothing is kept when the state is one
// the fast path cannot follow, or when HEAD or the index moved while git
// looked.
func scanAndKeep(ctx context.Context, wm *watchman.Client, o Options) (State, error) {
	removeCache(o.GitDir) // whatever happens below, the old one is stale
	c := &cache{Version: cacheVersion, Root: o.Dir}
	c.HeadRef = headRef(o.GitDir)
	before := stampsOf(c.files(o))
	w, err := wm.WatchProject(o.Dir)
	var clock string
	if err == nil {
		clock, err = wm.Clock(w, watchmanWait)
	}
	sc, serr := status(ctx, o)
	if serr != nil {
		return State{}, serr
	}
	st := sc.state()
	if err != nil || sc.conflicted {
		return st, nil
	}
	c.Watch, c.Relative, c.Clock, c.Commit, c.Branch = w.Root, w.Relative, clock, "", sc.branch
	if !sc.commit.IsZero() {
		c.Commit = sc.commit.String()
	}
	for _, e := range sc.entries {
		c.Entries = append(c.Entries, *e)
	}
	sort.Slice(c.Entries, func(i, j int) bool { return c.Entries[i].Path < c.Entries[j].Path })
	if !c.settings(ctx, o) {
		return st, nil
	}
	// The excludes file is known only now: stamp it as it was before.
	c.Stamps = stampsOf(c.files(o))
	if !sameStamps(before, c.Stamps[:len(before)]) || !c.keepTable(o) {
		return st, nil
	}
	_ = c.save(o.GitDir) // not kept: the next call scans again
	return st, nil
}

// headRef is the ref HEAD names, "" when it holds a commit.
func headRef(gitDir string) string {
	b, err := readSmall(filepath.Join(gitDir, "HEAD"), 4096)
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:")
	if !ok {
		return ""
	}
	return strings.TrimSpace(ref)
}

// settings reads what of git's settings the fast path must follow; false
// when one makes it unfit (a case-insensitive or symlink-less work
// tree, decomposed names, an excludes file it cannot find).
func (c *cache) settings(ctx context.Context, o Options) bool {
	cmd := exec.CommandContext(ctx, o.Git, "config", "-z", "--type=path", "--get-regexp",
		`^(core\.(autocrlf|eol|attributesfile|excludesfile|ignorecase|symlinks|filemode|precomposeunicode|splitindex)|filter\..*\.(clean|process)|index\.sparse)$`)
	cmd.Dir = o.Dir
	out, err := cmd.Output()
	if err != nil && !isExit(err, 1) { // 1: none set
		return false
	}
	cfg := map[string]string{}
	for _, kv := range strings.Split(string(out), "\x00") {
		if k, v, ok := strings.Cut(kv, "\n"); ok {
			cfg[strings.ToLower(k)] = v
		}
	}
	c.FileMode = cfg["core.filemode"] != "false"
	c.Filters = cfg["core.autocrlf"] == "true" || cfg["core.autocrlf"] == "input" || cfg["core.eol"] == "crlf" ||
		cfg["core.attributesfile"] != "" || exists(filepath.Join(o.CommonDir, "info", "attributes")) ||
		(o.UserConfigDir != "" && exists(filepath.Join(o.UserConfigDir, "git", "attributes")))
	for k := range cfg {
		if strings.HasPrefix(k, "filter.") {
			c.Filters = true
		}
	}
	switch c.Excludes = cfg["core.excludesfile"]; {
	case c.Excludes == "" && o.UserConfigDir == "":
		return false // git reads a file in a place not given
	case c.Excludes == "":
		c.Excludes = filepath.Join(o.UserConfigDir, "git", "ignore")
	case !filepath.IsAbs(c.Excludes):
		c.Excludes = filepath.Join(o.Dir, c.Excludes)
	}
	unfit := []string{"core.ignorecase", "core.precomposeunicode", "core.splitindex", "index.sparse"}
	return !slices.ContainsFunc(unfit, func(k string) bool { return cfg[k] == "true" }) && cfg["core.symlinks"] != "false"
}

func isExit(err error, code int) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == code
}

// keepTable reads the index whole, as git status just did, and keeps
// the table the fast path finds entries with; false when the index is
// not one it reads, or changed meanwhile.
func (c *cache) keepTable(o Options) bool {
	name := filepath.Join(o.GitDir, "index")
	f, err := safefile.Open(name)
	if err != nil {
		// No index yet (a new repository): an empty one.
		return os.IsNotExist(err) && (&indexTable{version: 2, end: 12}).save(o.GitDir, stampOf(name)) == nil
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return false
	}
	t, err := readIndexTable(b.Bytes())
	if err != nil || t.unfit != "" {
		return false
	}
	c.Filters = c.Filters || t.attributes
	return t.save(o.GitDir, stampOf(name)) == nil
}
