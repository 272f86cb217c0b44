//go:build unix

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

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/hooklog"
	"github.com/git-snap/git-snap/storage"

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

// hookArgs is the hook call as install writes it into personal settings:
// git-snap-hook AGENT when the hook program is beside git-snap, else
// git-snap hook AGENT.
func (b *bench) hookArgs(agent string) []string {
	if hook := filepath.Join(filepath.Dir(b.bin), "git-snap-hook"); fileExists(hook) {
		return []string{hook, agent}
	}
	return []string{b.bin, "hook", agent}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// row is one line of the result table. A row with a baseline is timed
// by pair (see pair.go) and filled by pairing.fill; a row with a budget
// names its kind, and the bound comes from budgets (docs/design.md §7).
type row struct {
	what, phase string
	ours        time.Duration
	plumbing    time.Duration // the baseline's median
	naive       time.Duration // a naive program's median, for scale; shown in the note
	// budget and ratioBudget are bounds a row set itself before budgets
	// held them all; they apply only to a row that names no kind.
	budget            time.Duration
	ratioBudget       float64
	note              string
	oursText, budText string // for rows that are not times
	met               bool   // for rows that are not times and name no kind

	kind     budgetKind // the row's budget, from budgets
	ratio    float64    // the median of the per-pair ratios (pair); for sizes, the size over the baseline's
	baseline string     // what the row is paired with, when not its budget's baseline
	bytes    int64      // a size the budget bounds (peak memory)
}

// ratioOrQuotient is the row's ratio to its baseline: the median of the
// per-pair ratios, or for a row timed without pair the quotient of the
// medians.
func (r row) ratioOrQuotient() float64 {
	switch {
	case r.ratio > 0:
		return r.ratio
	case r.plumbing > 0:
		return float64(r.ours) / float64(r.plumbing)
	}
	return 0
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
	if err != nil {
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out), nil
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

// The save rows' sessions, in pairs: git snap save writes the next
// snapshot of save-* and cold-*, save --append of apnd-*, and git
// fast-import that of the other of each pair. The names are of one
// length, so that both sides write blobs and commits of the same sizes.
var saveSessions = []string{"save", "fimp", "cold", "fimc", "apnd", "fima"}

// setup builds the large repository: a history of b.cfg.snapshots
// snapshots written by the hook path, sessions of 50 messages for the
// save rows (written by Save, as git snap save writes), and two
// 10k-message sessions for the diff rows, one written each way.
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
	s, err := gitsnap.Open(ctx, b.repo, gitsnap.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := b.history(ctx, s); err != nil {
		return err
	}
	logf("preparing sessions for the save runs and the 10k-message diffs")
	for _, prefix := range saveSessions {
		for _, phase := range []string{"a", "b"} {
			for r := range b.cfg.runs {
				session := fmt.Sprintf("%s-%s%d", prefix, phase, r)
				if _, err := s.Save(ctx, conversation(session, saveMessages), storage.SaveOptions{Session: session}); err != nil {
					return err
				}
			}
		}
	}
	big, err := newTranscript(s, b.repo, filepath.Join(b.work, "transcripts", "big.jsonl"), "big")
	if err != nil {
		return err
	}
	lines := make([][]byte, bigMessages)
	for i := range lines {
		lines[i] = claudeLine("big", i)
	}
	if err := big.grow(ctx, time.Time{}, lines...); err != nil {
		return err
	}
	if err := big.grow(ctx, time.Time{}, claudeLine("big", bigMessages), claudeLine("big", bigMessages+1)); err != nil {
		return err
	}
	doc := conversation("bigsave", bigMessages)
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "bigsave"}); err != nil {
		return err
	}
	doc["messages"].([]any)[bigMessages/2] = map[string]any{"id": "bigsave-m5000", "role": "user", "content": "changed"}
	_, err = s.Save(ctx, doc, storage.SaveOptions{Session: "bigsave"})
	return err
}

// history writes the large history through the hook path: sessions
// hist-0, hist-1, … of historyPerSession snapshots, each adding one
// record of the real transcript (its first historyPerSession records,
// with a session id of each session's own).
func (b *bench) history(ctx context.Context, s *gitsnap.Repository) error {
	sessions := b.cfg.snapshots / historyPerSession
	logf("building a history of %d snapshots in %d sessions through the hook path", sessions*historyPerSession, sessions)
	start := time.Now()
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range sessions {
		session := fmt.Sprintf("hist-%d", i)
		records, err := realRecords(session, historyPerSession)
		if err != nil {
			return err
		}
		t, err := newTranscript(s, b.repo, filepath.Join(b.work, "transcripts", "hist", session+".jsonl"), session)
		if err != nil {
			return err
		}
		for j, rec := range records {
			if err := t.grow(ctx, at.Add(time.Duration(i*historyPerSession+j)*time.Second), rec); err != nil {
				return err
			}
		}
		if i%100 == 99 {
			logf("  %d snapshots (%.0f/s)", (i+1)*historyPerSession, float64((i+1)*historyPerSession)/time.Since(start).Seconds())
		}
	}
	return nil
}

// benchEnv is the environment of every command run: git's identity
// fixed, no default session, no colour.
func benchEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "GIT_SNAP_SESSION=", "NO_COLOR=1")
}

// timed times one command in the large repository, fed stdin: for a
// row without a baseline (one with a baseline is timed by pair).
func (b *bench) timed(stdin []byte, name string, args ...string) (time.Duration, error) {
	return b.run("", stdin, append([]string{name}, args...)...)
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

// measure times the core rows in one phase of the large repository.
func (b *bench) measure(phase string) ([]row, error) {
	tag := map[string]string{"before gc": "a", "after gc": "b"}[phase]
	rows, err := b.saveRows(tag, phase)
	if err != nil {
		return nil, err
	}
	logs, err := b.pair(b.command("", nil, b.bin, "log", "-n", "20", "hist-0"), b.command("", nil, "git", "log", "-n", "20", "refs/snap/hist-0"))
	if err != nil {
		return nil, err
	}
	rows = append(rows, logs.fill(row{what: fmt.Sprintf("log -n 20, a session of %d snapshots %s", historyPerSession, hookPath), phase: phase, kind: kindLog}))
	for _, d := range []struct{ session, what string }{
		{"big", "2 records appended, " + hookPath},
		{"bigsave", "1 message changed in the middle, written by Save"},
	} {
		p, err := b.pair(b.command("", nil, b.bin, "diff", d.session+"~1", d.session, "--stat"),
			b.command("", nil, "git", "diff", "--stat", "refs/snap/"+d.session+"~1", "refs/snap/"+d.session))
		if err != nil {
			return nil, err
		}
		rows = append(rows, p.fill(row{what: fmt.Sprintf("diff --stat, two 10k-message snapshots, %s", d.what), phase: phase, kind: kindDiff}))
	}
	hookRows, err := b.hooks(tag, phase)
	if err != nil {
		return nil, err
	}
	return append(rows, hookRows...), nil
}

// saveRows times git snap save of a 51st message onto 50, with the tip
// cache and without, and save --append of the one message, each paired
// with one git fast-import given the same input (the whole snapshot, or
// the one message) onto a session of the same 50 messages; and the
// save's peak memory.
func (b *bench) saveRows(tag, phase string) ([]row, error) {
	save := func(prefix string, drop bool) timer {
		return func(r int) (time.Duration, error) {
			session := fmt.Sprintf("%s-%s%d", prefix, tag, r)
			if drop { // this session's cache only
				os.RemoveAll(filepath.Join(b.repo, ".git", "snap", "cache", "tip", "refs%snap%"+session))
			}
			doc, err := snapshot.Marshal(conversation(session, saveMessages+1))
			if err != nil {
				return 0, err
			}
			return b.run("", doc, b.bin, "save", "--session", session, "--label", "bench")
		}
	}
	appendOne := func(r int) (time.Duration, error) {
		session := fmt.Sprintf("apnd-%s%d", tag, r)
		line, err := snapshot.Marshal(message(session, saveMessages))
		if err != nil {
			return 0, err
		}
		return b.run("", append(line, '\n'), b.bin, "save", "--session", session, "--label", "bench", "--append")
	}
	const (
		whole = "one git fast-import given the whole 51-message snapshot onto the same tip"
		one   = "one git fast-import given the one message onto the same tip"
	)
	var rows []row
	for _, s := range []struct {
		ours           timer
		oursP, baseP   string
		wholeSnapshot  bool
		what, baseline string
		note           string
	}{
		{save("save", false), "save", "fimp", true, "save, 50 messages + 1 (Save)", whole, ""},
		{save("cold", true), "cold", "fimc", true, "save, 50 messages + 1 (Save), tip cache missing", whole, "the first save of a process that finds no cache"},
		{appendOne, "apnd", "fima", false, "save --append of 1 message onto 50 (Append)", one, ""},
	} {
		p, err := b.pair(s.ours, b.fastImportTimer(tag, s.oursP, s.baseP, s.wholeSnapshot))
		if err != nil {
			return nil, err
		}
		if err := b.sameShape(fmt.Sprintf("%s-%s0", s.oursP, tag), fmt.Sprintf("%s-%s0", s.baseP, tag)); err != nil {
			return nil, err
		}
		rows = append(rows, p.fill(row{what: s.what, phase: phase, note: s.note, baseline: s.baseline}))
	}
	var peak []int64
	for r := range b.cfg.runs {
		session := fmt.Sprintf("save-%s%d", tag, r)
		doc, err := snapshot.Marshal(conversation(session, saveMessages+2))
		if err != nil {
			return nil, err
		}
		rss, err := b.peakMemory(doc, b.bin, "save", "--session", session, "--label", "memory")
		if err != nil {
			return nil, err
		}
		peak = append(peak, rss)
	}
	slices.Sort(peak)
	mb := func(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
	return append(rows, row{what: "peak memory of a save, 50 messages + 2", phase: phase, kind: kindMemory, bytes: peak[len(peak)-1],
		oursText: mb(peak[len(peak)/2]) + " (max " + mb(peak[len(peak)-1]) + ")"}), nil
}

// fastImportTimer is a save row's baseline: one git fast-import process
// that writes the next snapshot of a session (prefix) of the same 50
// messages as git snap save's (oursPrefix) in the same run, and moves
// its ref. It is given what git snap save is given, as git takes it:
// with whole, every file of the 51-message snapshot (the messages'
// canonical bytes and the snapshot's other files), else the one new
// message; and the tip and the commit message, taken (untimed) from git
// snap save's commit of the same run.
func (b *bench) fastImportTimer(tag, oursPrefix, prefix string, whole bool) timer {
	return func(r int) (time.Duration, error) {
		ours, session := fmt.Sprintf("%s-%s%d", oursPrefix, tag, r), fmt.Sprintf("%s-%s%d", prefix, tag, r)
		ref := "refs/snap/" + session
		parent, err := b.gitOut("rev-parse", ref)
		if err != nil {
			return 0, err
		}
		msg, err := b.gitOut("log", "-1", "--format=%B", "refs/snap/"+ours)
		if err != nil {
			return 0, err
		}
		msg = strings.TrimRight(strings.Replace(msg, "Snap-Session: "+ours+"\n", "Snap-Session: "+session+"\n", 1), "\n") + "\n"
		var in bytes.Buffer
		fmt.Fprintf(&in, "commit %s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%sfrom %s\n", ref, time.Now().Unix(), len(msg), msg, strings.TrimSpace(parent))
		first := saveMessages
		if whole {
			first = 0
			if err := b.otherFiles(&in, ref); err != nil {
				return 0, err
			}
		}
		for i := first; i <= saveMessages; i++ {
			blob, err := snapshot.MarshalIndent(message(session, i))
			if err != nil {
				return 0, err
			}
			fmt.Fprintf(&in, "M 100644 inline messages/%04d/%06d.json\ndata %d\n%s\n", i/128, i, len(blob), blob)
		}
		in.WriteString("\ndone\n")
		return b.run("", in.Bytes(), "git", "fast-import", "--quiet", "--done")
	}
}

// otherFiles writes, as fast-import commands, a deleteall and every file
// of the snapshot at ref but its messages: a commit given thus and its
// messages is the whole snapshot, not a change to its parent's tree.
func (b *bench) otherFiles(in *bytes.Buffer, ref string) error {
	list, err := b.gitOut("ls-tree", "-r", "--format=%(objectname) %(path)", ref)
	if err != nil {
		return err
	}
	in.WriteString("deleteall\n")
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		id, path, _ := strings.Cut(l, " ")
		if strings.HasPrefix(path, "messages/") {
			continue
		}
		data, err := b.gitOut("cat-file", "blob", id)
		if err != nil {
			return err
		}
		fmt.Fprintf(in, "M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
	}
	return nil
}

// sameShape checks that git snap save and its git fast-import baseline
// changed the same paths of their sessions (the same trees and one new
// blob of the same size) and that the fast-import's snapshot reads back
// as its 51 messages: that the baseline did the same work.
func (b *bench) sameShape(ours, base string) error {
	var shapes [2]string
	for i, session := range []string{ours, base} {
		ref := "refs/snap/" + session
		paths, err := b.gitOut("diff-tree", "-r", "-t", "--name-status", ref+"~1", ref)
		if err != nil {
			return err
		}
		size, err := b.gitOut("cat-file", "-s", fmt.Sprintf("%s:messages/0000/%06d.json", ref, saveMessages))
		if err != nil {
			return err
		}
		shapes[i] = paths + "blob of " + size
	}
	if shapes[0] != shapes[1] {
		return fmt.Errorf("the save baseline does other work than git snap save: %s changed\n%s\nbut %s changed\n%s", ours, shapes[0], base, shapes[1])
	}
	cmd := exec.Command(b.bin, "show", "--json", base)
	cmd.Dir, cmd.Env = b.repo, b.env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git snap show %s, the save baseline's snapshot: %v", base, err)
	}
	got, err := snapshot.Parse(out, snapshot.Limits{})
	if err != nil {
		return err
	}
	doc, _ := got.(map[string]any)["document"].(map[string]any)
	want, _ := snapshot.Marshal(conversation(base, saveMessages+1)["messages"])
	wantv, err := snapshot.Parse(want, snapshot.Limits{})
	if err != nil || !snapshot.Equal(doc["messages"], wantv) {
		return fmt.Errorf("git snap show %s: the save baseline's snapshot does not read back as its %d messages", base, saveMessages+1)
	}
	return nil
}

// hooks times git snap hook claude-code on the longest real transcript
// (3 MB) grown by two lines, paired with a naive hook that reads and
// rewrites it whole; and the first call, which reads all of it.
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
	hook := b.hookArgs("claude-code")
	first, err := b.timed(payload, hook[0], hook[1:]...)
	if err != nil {
		return nil, err
	}
	p, err := b.pair(func(r int) (time.Duration, error) {
		if err := write(start + 2*(r+1)); err != nil {
			return 0, err
		}
		return b.timed(payload, hook[0], hook[1:]...)
	}, b.command("", nil, b.self, "naive-hook", path, filepath.Join(b.work, "naive-hook", tag)))
	if err != nil {
		return nil, err
	}
	if err := hookFailed(b.repo); err != nil {
		return nil, err
	}
	mb := float64(len(bytes.Join(longest.Lines, []byte("\n")))) / 1e6
	return []row{
		p.fill(row{what: fmt.Sprintf("hook call, %.1f MB real transcript grown by 2 lines", mb), phase: phase, kind: kindHook}),
		{what: fmt.Sprintf("hook, first call on the %.1f MB transcript", mb), phase: phase, ours: first, note: "reads and stores all of it, once; one run"},
	}, nil
}

func (b *bench) table(rows []row) string {
	var t strings.Builder
	ms := msText
	if b.repo != "" {
		fmt.Fprintf(&t, "%d snapshots in the large repository; ", b.cfg.snapshots)
	}
	fmt.Fprintf(&t, "medians of %d runs, whole process, each row's baseline run alternately with it (A, B, A, B); the ratio is the median of the per-pair ratios; budgets from docs/design.md §7.\n\n", b.cfg.runs)
	fmt.Fprintln(&t, "| measurement | phase | git-snap | baseline | git-snap / baseline | budget | met |")
	fmt.Fprintln(&t, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		ours, ratio := r.oursText, "–"
		if ours == "" {
			ours = ms(r.ours)
		}
		if q := r.ratioOrQuotient(); q > 0 {
			ratio = fmt.Sprintf("%.2f", q)
		}
		budget, met := r.verdict()
		verdict := map[bool]string{true: "yes", false: "**no**"}[met]
		if budget == "–" {
			verdict = "–"
		}
		var notes []string
		if base := r.baselineName(); base != "" {
			notes = append(notes, "baseline: "+base)
		}
		if r.naive > 0 {
			notes = append(notes, "a naive JSON-file writer: "+ms(r.naive))
		}
		if r.note != "" {
			notes = append(notes, r.note)
		}
		what := r.what
		if len(notes) > 0 {
			what += " (" + strings.Join(notes, "; ") + ")"
		}
		phase := r.phase
		if phase == "" {
			phase = "–"
		}
		fmt.Fprintf(&t, "| %s | %s | %s | %s | %s | %s | %s |\n", what, phase, ours, ms(r.plumbing), ratio, budget, verdict)
	}
	return t.String()
}

// msText writes a time as the table does.
func msText(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// baselineName is what the row was paired with: its own, else its
// budget's.
func (r row) baselineName() string {
	if r.baseline != "" {
		return r.baseline
	}
	if bud, ok := budgetOf(r.kind); ok && bud.baseline != "—" {
		return strings.ReplaceAll(bud.baseline, "`", "")
	}
	return ""
}

// verdict is the row's budget as the table writes it and whether the
// row is within it: its kind's budget, or for a row of no kind the
// bounds it set itself.
func (r row) verdict() (string, bool) {
	if bud, ok := budgetOf(r.kind); ok {
		return bud.bound(), bud.met(r)
	}
	if r.kind != "" {
		return "no budget named " + string(r.kind), false
	}
	if r.oursText != "" {
		if r.budText == "" {
			return "–", true
		}
		return r.budText, r.met
	}
	budget, met := "–", true
	if r.budget > 0 {
		budget, met = "≤ "+msText(r.budget), r.ours <= r.budget
	}
	if r.ratioBudget > 0 {
		budget = strings.TrimPrefix(budget+fmt.Sprintf(", ≤ %.1f × baseline", r.ratioBudget), "–, ")
		met = met && r.ratioOrQuotient() <= r.ratioBudget
	}
	return budget, met
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
	if err := b.gitIn(other, "remote", "add", "bench", remote); err != nil {
		return nil, err
	}
	// The mirror holds a ref per session, as versions before pushed them.
	if _, err := b.timed(nil, b.bin, "migrate", "--remote", "bench"); err != nil {
		return nil, err
	}
	s, err := gitsnap.Open(ctx, b.repo, gitsnap.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Each pair's two sessions get a new snapshot through the hook path
	// first: git snap push sends one, git push the other.
	grow := func(r int) (string, string, error) {
		ours, theirs := fmt.Sprintf("hist-%d", 2*r), fmt.Sprintf("hist-%d", 2*r+1)
		for _, sess := range []string{ours, theirs} {
			t, err := newTranscript(s, b.repo, filepath.Join(b.work, "transcripts", "hist", sess+".jsonl"), sess)
			if err != nil {
				return "", "", err
			}
			if err := t.grow(ctx, time.Time{}, claudeLine(sess, historyPerSession)); err != nil {
				return "", "", err
			}
		}
		return ours, theirs, nil
	}
	push, err := b.pair(func(r int) (time.Duration, error) {
		ours, _, err := grow(r)
		if err != nil {
			return 0, err
		}
		return b.timed(nil, b.bin, "push", "bench", ours)
	}, func(r int) (time.Duration, error) {
		theirs := fmt.Sprintf("hist-%d", 2*r+1)
		spec := []string{"refs/snap/" + theirs + ":refs/snap/" + theirs, "refs/tags/snap/" + theirs + "/*:refs/tags/snap/" + theirs + "/*"}
		return b.timed(nil, "git", append([]string{"push", "--porcelain", "bench"}, spec...)...)
	})
	if err != nil {
		return nil, err
	}
	pull, err := b.pair(func(r int) (time.Duration, error) {
		return b.timed(nil, b.bin, "--store", other, "pull", "bench", fmt.Sprintf("hist-%d", 2*r))
	}, func(r int) (time.Duration, error) {
		theirs := fmt.Sprintf("hist-%d", 2*r+1)
		return b.timed(nil, "git", "-C", other, "fetch", "--no-tags", "--no-write-fetch-head", "bench",
			"+refs/snap/"+theirs+":refs/remotes/bench/snap/"+theirs, "+refs/tags/snap/"+theirs+"/*:refs/remotes/bench/snap-checkpoints/"+theirs+"/*")
	})
	if err != nil {
		return nil, err
	}
	logf("prune: a session of 10000 snapshots")
	for i := 1; i <= 10000; i++ {
		if _, err := s.Save(ctx, conversation("p10k", 1+i%50), storage.SaveOptions{Session: "p10k"}); err != nil {
			return nil, err
		}
	}
	prune, err := b.timed(nil, b.bin, "prune", "p10k", "--keep-last", "100")
	if err != nil {
		return nil, err
	}
	return []row{
		push.fill(row{what: "push of 1 new snapshot, " + hookPath, phase: "after gc", kind: kindPush}),
		pull.fill(row{what: "pull of 1 new snapshot", phase: "after gc", kind: kindPull}),
		{what: "prune of a 10,000-snapshot session to 100", phase: "after gc", ours: prune, note: "one run, for scale"},
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
