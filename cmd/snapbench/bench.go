package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/hooklog"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

type bench struct {
	cfg  config
	work string
	repo string
	bin  string
	self string
	env  []string
}

// row is one line of the result table.
type row struct {
	what, phase       string
	ours              time.Duration
	plumbing, naive   time.Duration
	budget            time.Duration
	ratioBudget       float64 // ours/plumbing must be at most this; 0: none
	note              string
	oursText, budText string // for rows that are not times
	met               bool
}

const (
	historyPerSession = 100 // snapshots per session of the large history
	saveMessages      = 50  // the save budget: a 50-message snapshot, appending one
	bigMessages       = 10000
)

func (b *bench) git(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = b.repo, b.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (b *bench) gitOut(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = b.repo, b.env
	out, err := cmd.Output()
	return string(out), err
}

// message makes the i-th message of a session, about 400 bytes.
func message(session string, i int) any {
	role := []string{"user", "assistant"}[i%2]
	m := map[string]any{
		"id":      fmt.Sprintf("%s-m%d", session, i),
		"role":    role,
		"time":    time.Date(2026, 3, 2, 10, 0, i, 0, time.UTC).Format(time.RFC3339),
		"content": fmt.Sprintf("message %d of %s: %s", i, session, strings.Repeat("lorem ipsum dolor sit amet ", 10)),
	}
	if role == "assistant" {
		m["usage"] = map[string]any{"input_tokens": 1000 + i, "output_tokens": 50 + i%40}
	}
	return m
}

func conversation(session string, n int) map[string]any {
	msgs := make([]any, n)
	for i := range msgs {
		msgs[i] = message(session, i)
	}
	return map[string]any{"config": map[string]any{"model": "m", "temperature": 0.2}, "messages": msgs}
}

func (b *bench) setup(ctx context.Context) error {
	b.repo = filepath.Join(b.work, "repo")
	if err := os.MkdirAll(b.repo, 0o777); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"commit", "-q", "--allow-empty", "-m", "code"}} {
		if err := b.git(args...); err != nil {
			return err
		}
	}
	s, err := gitstore.Open(ctx, b.repo, gitstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	logf("building a history of %d snapshots in %d sessions", b.cfg.snapshots, b.cfg.snapshots/historyPerSession)
	start := time.Now()
	for i := 0; i < b.cfg.snapshots/historyPerSession; i++ {
		session := fmt.Sprintf("hist-%d", i)
		for j := 1; j <= historyPerSession; j++ {
			if _, err := s.Save(ctx, conversation(session, j), gitstore.SaveOptions{Session: session, Label: "history"}); err != nil {
				return err
			}
		}
		if i%100 == 99 {
			logf("  %d snapshots (%.0f/s)", (i+1)*historyPerSession, float64((i+1)*historyPerSession)/time.Since(start).Seconds())
		}
	}
	logf("preparing sessions for the save runs and the 10k-message diff")
	for _, prefix := range []string{"save", "plumb", "cold"} {
		for _, phase := range []string{"a", "b"} {
			for r := range b.cfg.runs {
				session := fmt.Sprintf("%s-%s%d", prefix, phase, r)
				if _, err := s.Save(ctx, conversation(session, saveMessages), gitstore.SaveOptions{Session: session}); err != nil {
					return err
				}
			}
		}
	}
	big := conversation("big", bigMessages)
	if _, err := s.Save(ctx, big, gitstore.SaveOptions{Session: "big"}); err != nil {
		return err
	}
	big["messages"].([]any)[bigMessages/2] = map[string]any{"id": "big-m5000", "role": "user", "content": "changed"}
	_, err = s.Save(ctx, big, gitstore.SaveOptions{Session: "big"})
	return err
}

// benchEnv is the environment of every command run: git's identity
// fixed, no default session, no colour.
func benchEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "GIT_SNAP_SESSION=", "NO_COLOR=1")
}

// timed runs a command and returns its wall time.
func (b *bench) timed(stdin []byte, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = b.repo, b.env
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return d, nil
}

// peakMemory runs a command under this program's rss wrapper.
func (b *bench) peakMemory(stdin []byte, name string, args ...string) (int64, error) {
	cmd := exec.Command(b.self, append([]string{"rss", name}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdin = b.repo, b.env, bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("rss %s: %v", name, err)
	}
	return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func (b *bench) measure(ctx context.Context, phase string) ([]row, error) {
	tag := map[string]string{"before gc": "a", "after gc": "b"}[phase]
	var ours, plumb, naive, cold []time.Duration
	var peak []int64
	for r := range b.cfg.runs {
		doc, err := snapshot.Marshal(conversation(fmt.Sprintf("save-%s%d", tag, r), saveMessages+1))
		if err != nil {
			return nil, err
		}
		d, err := b.timed(doc, b.bin, "save", "--session", fmt.Sprintf("save-%s%d", tag, r), "--label", "bench")
		if err != nil {
			return nil, err
		}
		ours = append(ours, d)
		rss, err := b.peakMemory(doc, b.bin, "save", "--session", fmt.Sprintf("save-%s%d", tag, r), "--label", "memory")
		if err != nil {
			return nil, err
		}
		peak = append(peak, rss)

		script, err := b.plumbingScript(fmt.Sprintf("plumb-%s%d", tag, r))
		if err != nil {
			return nil, err
		}
		if d, err = b.timed(nil, "sh", script); err != nil {
			return nil, err
		}
		plumb = append(plumb, d)

		if d, err = b.timed(doc, b.self, "naive-save", filepath.Join(b.work, "naive", tag)); err != nil {
			return nil, err
		}
		naive = append(naive, d)

		session := fmt.Sprintf("cold-%s%d", tag, r)
		os.Remove(filepath.Join(b.repo, ".git", "snap", "cache", "refs%snap%"+session)) // this session's only
		cdoc, _ := snapshot.Marshal(conversation(session, saveMessages+1))
		if d, err = b.timed(cdoc, b.bin, "save", "--session", session); err != nil {
			return nil, err
		}
		cold = append(cold, d)
	}
	var logs, gitLogs, diffs, diffStats, gitDiffs, naiveDiffs []time.Duration
	a, bb, err := b.naiveBigFiles()
	if err != nil {
		return nil, err
	}
	for range b.cfg.runs {
		d, err := b.timed(nil, b.bin, "log", "-n", "20", "hist-0")
		if err != nil {
			return nil, err
		}
		logs = append(logs, d)
		if d, err = b.timed(nil, "git", "log", "-n", "20", "refs/snap/hist-0"); err != nil {
			return nil, err
		}
		gitLogs = append(gitLogs, d)
		if d, err = b.timed(nil, b.bin, "diff", "big~1", "big"); err != nil {
			return nil, err
		}
		diffs = append(diffs, d)
		if d, err = b.timed(nil, b.bin, "diff", "--stat", "big~1", "big"); err != nil {
			return nil, err
		}
		diffStats = append(diffStats, d)
		if d, err = b.timed(nil, "git", "diff", "--stat", "refs/snap/big~1", "refs/snap/big"); err != nil {
			return nil, err
		}
		gitDiffs = append(gitDiffs, d)
		if d, err = b.timed(nil, b.self, "naive-diff", a, bb); err != nil {
			return nil, err
		}
		naiveDiffs = append(naiveDiffs, d)
	}
	hookRows, err := b.hooks(tag, phase)
	if err != nil {
		return nil, err
	}
	slices.Sort(peak)
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	return append([]row{
		{what: "save, 50 messages + 1", phase: phase, ours: median(ours), plumbing: median(plumb), naive: median(naive), budget: 10 * time.Millisecond, ratioBudget: 0.6},
		{what: "save, tip cache missing", phase: phase, ours: median(cold), plumbing: median(plumb), naive: median(naive), note: "first save of a process that finds no cache"},
		{what: "log -n 20", phase: phase, ours: median(logs), plumbing: median(gitLogs), budget: 30 * time.Millisecond, ratioBudget: 2, note: "baseline: git log -n 20"},
		{what: "diff, 10k messages, 1 changed", phase: phase, ours: median(diffs), plumbing: median(gitDiffs), naive: median(naiveDiffs), budget: 20 * time.Millisecond, note: "baseline: git diff --stat"},
		{what: "diff --stat, 10k messages, 1 changed", phase: phase, ours: median(diffStats), plumbing: median(gitDiffs), ratioBudget: 2.5, note: "baseline: git diff --stat"},
		{what: "peak memory of a save", phase: phase, oursText: mib(peak[len(peak)/2]) + " (max " + mib(peak[len(peak)-1]) + ")", budText: "≤ 40 MiB", met: peak[len(peak)-1] <= 40<<20},
	}, hookRows...), nil
}

// hooks times git snap hook claude-code on the longest real transcript
// (3 MB): the first call, which reads all of it, and calls after it grew
// by two lines, against a naive hook that reads and rewrites it whole.
func (b *bench) hooks(tag, phase string) ([]row, error) {
	longest, err := testdocs.Longest()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.work, "transcripts", tag+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	start := len(longest.Lines) - 2*b.cfg.runs
	write := func(n int) error {
		return os.WriteFile(path, append(bytes.Join(longest.Lines[:n], []byte("\n")), '\n'), 0o666)
	}
	if err := write(start); err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "hook-" + tag, "transcript_path": path, "cwd": b.repo,
		"hook_event_name": "PostToolUse", "tool_name": "Bash"})
	first, err := b.timed(payload, b.bin, "hook", "claude-code")
	if err != nil {
		return nil, err
	}
	var ours, naive []time.Duration
	for r := range b.cfg.runs {
		if err := write(start + 2*(r+1)); err != nil {
			return nil, err
		}
		d, err := b.timed(payload, b.bin, "hook", "claude-code")
		if err != nil {
			return nil, err
		}
		ours = append(ours, d)
		if d, err = b.timed(nil, b.self, "naive-hook", path, filepath.Join(b.work, "naive-hook", tag)); err != nil {
			return nil, err
		}
		naive = append(naive, d)
	}
	if err := hookFailed(b.repo); err != nil {
		return nil, err
	}
	mb := float64(len(bytes.Join(longest.Lines, []byte("\n")))) / 1e6
	return []row{
		{what: fmt.Sprintf("hook call, %.1f MB transcript grown by 2 lines", mb), phase: phase, ours: median(ours), naive: median(naive), budget: 40 * time.Millisecond, note: "naive: re-read and rewrite the whole transcript"},
		{what: fmt.Sprintf("hook, first call on the %.1f MB transcript", mb), phase: phase, ours: first, note: "reads and stores all of it, once"},
	}, nil
}

// plumbingScript writes a shell script that does the save of the next
// message with git plumbing, given everything a harness would know: the
// message's canonical bytes and the listings of the trees it changes.
func (b *bench) plumbingScript(session string) (string, error) {
	dir := filepath.Join(b.work, "plumb", session)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	msg, err := snapshot.MarshalIndent(message(session, saveMessages))
	if err != nil {
		return "", err
	}
	ref := "refs/snap/" + session
	chunk, err := b.gitOut("ls-tree", ref+":messages/0000")
	if err != nil {
		return "", err
	}
	root, err := b.gitOut("ls-tree", ref)
	if err != nil {
		return "", err
	}
	var rootLines []string
	for _, l := range strings.Split(strings.TrimSpace(root), "\n") {
		if !strings.HasSuffix(l, "\tmessages") {
			rootLines = append(rootLines, l)
		}
	}
	files := map[string]string{"msg.json": string(msg), "chunk.txt": chunk, "root.txt": strings.Join(rootLines, "\n") + "\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			return "", err
		}
	}
	script := fmt.Sprintf(`set -e
cd %[1]q
d=%[2]q
p=$(git rev-parse %[3]s)
b=$(git hash-object -w --stdin < "$d/msg.json")
c=$( (cat "$d/chunk.txt"; printf '100644 blob %%s\t%%06d.json\n' "$b" %[4]d) | git mktree)
m=$(printf '040000 tree %%s\t0000\n' "$c" | git mktree)
r=$( (cat "$d/root.txt"; printf '040000 tree %%s\tmessages\n' "$m") | git mktree)
k=$(printf 'bench\n\nSnap-Session: %[5]s\n' | git commit-tree "$r" -p "$p")
git update-ref %[3]s "$k" "$p"
`, b.repo, dir, ref, saveMessages, session)
	path := filepath.Join(dir, "save.sh")
	return path, os.WriteFile(path, []byte(script), 0o666)
}

// naiveBigFiles writes the two 10k-message documents as pretty JSON files.
func (b *bench) naiveBigFiles() (string, string, error) {
	big := conversation("big", bigMessages)
	a := filepath.Join(b.work, "big-a.json")
	out, _ := json.MarshalIndent(big, "", "  ")
	if err := os.WriteFile(a, out, 0o666); err != nil {
		return "", "", err
	}
	big["messages"].([]any)[bigMessages/2] = map[string]any{"id": "big-m5000", "role": "user", "content": "changed"}
	bb := filepath.Join(b.work, "big-b.json")
	out, _ = json.MarshalIndent(big, "", "  ")
	return a, bb, os.WriteFile(bb, out, 0o666)
}

func (b *bench) table(rows []row) string {
	var t strings.Builder
	ms := func(d time.Duration) string {
		switch {
		case d == 0:
			return "–"
		case d >= 10*time.Second:
			return fmt.Sprintf("%.0f s", d.Seconds())
		}
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	if b.repo != "" {
		fmt.Fprintf(&t, "%d snapshots in the large repository; ", b.cfg.snapshots)
	}
	fmt.Fprintf(&t, "medians of %d paired runs, whole process; the baseline of each row is named in it (git plumbing for the saves).\n\n", b.cfg.runs)
	fmt.Fprintln(&t, "| measurement | phase | git-snap | baseline | naive JSON files | git-snap / baseline | budget | met |")
	fmt.Fprintln(&t, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		ours, budget, ratio := r.oursText, r.budText, "–"
		met := r.met
		if ours == "" {
			ours = ms(r.ours)
			if r.plumbing > 0 {
				ratio = fmt.Sprintf("%.2f", float64(r.ours)/float64(r.plumbing))
			}
			met = r.budget == 0 || r.ours <= r.budget
			budget = "–"
			if r.budget > 0 {
				budget = "≤ " + ms(r.budget)
			}
			if r.ratioBudget > 0 {
				budget = strings.TrimPrefix(budget+fmt.Sprintf(", ≤ %.1f × baseline", r.ratioBudget), "–, ")
				met = met && float64(r.ours) <= r.ratioBudget*float64(r.plumbing)
			}
		}
		verdict := map[bool]string{true: "yes", false: "**no**"}[met]
		if budget == "–" || budget == "" {
			verdict = "–"
		}
		note := ""
		if r.note != "" {
			note = " (" + r.note + ")"
		}
		phase := r.phase
		if phase == "" {
			phase = "–"
		}
		fmt.Fprintf(&t, "| %s%s | %s | %s | %s | %s | %s | %s | %s |\n", r.what, note, phase, ours, ms(r.plumbing), ms(r.naive), ratio, budget, verdict)
	}
	return t.String()
}

// share times git snap push and pull of one new snapshot against plain
// git push and git fetch of the same refs, between the large repository
// and two mirrors of it (made with hard links, so setting up is quick),
// and a prune of a 10k-snapshot session.
func (b *bench) share(ctx context.Context) ([]row, error) {
	remote, other := filepath.Join(b.work, "remote.git"), filepath.Join(b.work, "other.git")
	for _, dir := range []string{remote, other} {
		if err := b.git("clone", "-q", "--mirror", b.repo, dir); err != nil {
			return nil, err
		}
	}
	if err := b.git("remote", "add", "bench", remote); err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "remote", "add", "bench", remote)
	cmd.Dir, cmd.Env = other, b.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v %s", err, out)
	}
	s, err := gitstore.Open(ctx, b.repo, gitstore.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var push, gitPush, pull, gitFetch []time.Duration
	for r := range b.cfg.runs {
		ours, theirs := fmt.Sprintf("hist-%d", 2*r), fmt.Sprintf("hist-%d", 2*r+1)
		for _, sess := range []string{ours, theirs} {
			if _, err := s.Save(ctx, conversation(sess, historyPerSession+1), gitstore.SaveOptions{Session: sess}); err != nil {
				return nil, err
			}
		}
		d, err := b.timed(nil, b.bin, "push", "bench", ours)
		if err != nil {
			return nil, err
		}
		push = append(push, d)
		spec := []string{"refs/snap/" + theirs + ":refs/snap/" + theirs, "refs/tags/snap/" + theirs + "/*:refs/tags/snap/" + theirs + "/*"}
		if d, err = b.timed(nil, "git", append([]string{"push", "--porcelain", "bench"}, spec...)...); err != nil {
			return nil, err
		}
		gitPush = append(gitPush, d)
		if d, err = b.timed(nil, b.bin, "--store", other, "pull", "bench", ours); err != nil {
			return nil, err
		}
		pull = append(pull, d)
		fetch := []string{"-C", other, "fetch", "--no-tags", "--no-write-fetch-head", "bench",
			"+refs/snap/" + theirs + ":refs/remotes/bench/snap/" + theirs, "+refs/tags/snap/" + theirs + "/*:refs/remotes/bench/snap-checkpoints/" + theirs + "/*"}
		if d, err = b.timed(nil, "git", fetch...); err != nil {
			return nil, err
		}
		gitFetch = append(gitFetch, d)
	}
	logf("prune: a session of 10000 snapshots")
	for i := 1; i <= 10000; i++ {
		if _, err := s.Save(ctx, conversation("p10k", 1+i%50), gitstore.SaveOptions{Session: "p10k"}); err != nil {
			return nil, err
		}
	}
	prune, err := b.timed(nil, b.bin, "prune", "p10k", "--keep-last", "100")
	if err != nil {
		return nil, err
	}
	return []row{
		{what: "push of 1 new snapshot", phase: "after gc", ours: median(push), plumbing: median(gitPush), ratioBudget: 1.5, note: "baseline: git push of the same refs"},
		{what: "pull of 1 new snapshot", phase: "after gc", ours: median(pull), plumbing: median(gitFetch), ratioBudget: 1.5, note: "baseline: git fetch of the same refs"},
		{what: "prune of a 10,000-snapshot session to 100", phase: "after gc", ours: prune, budget: 10 * time.Second, note: "one run"},
	}, nil
}

// hookFailed reports the failures the hook logged in repo's hook.log;
// the lines that only record a call are not failures.
func hookFailed(repo string) error {
	log, err := hooklog.Read(filepath.Join(repo, ".git", "snap", "hook.log"), 5)
	if err != nil {
		return fmt.Errorf("read the hook log in %s: %w", repo, err)
	}
	if len(log.Errors) > 0 {
		return fmt.Errorf("the hook failed in %s: %v", repo, log.Errors)
	}
	return nil
}
