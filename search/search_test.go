package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// fixture is a session built from a real transcript, saved in parts with
// one snapshot per part.
type fixture struct {
	session string
	file    string // under the module's testdata
	lines   [][]byte
	parts   []int // the message count after each snapshot
}

var fixtures = []*fixture{
	{session: "short", file: "claude-code/short.jsonl"},
	{session: "tool-heavy", file: "claude-code/tool_heavy.jsonl"},
	{session: "subagent", file: "claude-code/subagent.jsonl"},
	{session: "plangate", file: "codex-real/plangate-sample.jsonl"},
}

// newRepo creates a git repository with git itself and saves every
// fixture into it in three snapshots labelled part-1 to part-3.
func newRepo(t *testing.T) (string, *gitstore.Store) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	ctx := context.Background()
	s, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, f := range fixtures {
		data, err := os.ReadFile(filepath.Join(testdocs.Root(), "testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		f.lines = nil
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				f.lines = append(f.lines, l)
			}
		}
		n := len(f.lines)
		f.parts = []int{n / 3, 2 * n / 3, n}
		source := "import"
		if strings.HasPrefix(f.file, "codex") {
			source = "codex"
		}
		for i, end := range f.parts {
			msgs := make([]any, end)
			for j := range msgs {
				msgs[j] = agent.Element(f.lines[j], snapshot.Limits{})
			}
			label := "part-" + string(rune('1'+i))
			if _, err := s.Save(ctx, map[string]any{"messages": msgs}, storage.SaveOptions{Session: f.session, Label: label, Source: source}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, s
}

func open(t *testing.T, s *gitstore.Store) *Index {
	t.Helper()
	x, err := Open(context.Background(), s, DefaultDir(s.Paths().CommonDir))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func find(t *testing.T, x *Index, q Query) []Hit {
	t.Helper()
	hits, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return hits
}

// skipped lists the keys whose strings search does not index: ids,
// kinds, signatures and encoded images.
var skipped = map[string]bool{"signature": true, "id": true, "tool_use_id": true, "type": true, "data": true,
	"media_type": true, "name": true, "call_id": true, "encrypted_content": true}

// strs collects the strings of v, except under skipped keys.
func strs(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, e := range v {
			strs(e, out)
		}
	case map[string]any:
		for k, e := range v {
			if !skipped[k] {
				strs(e, out)
			}
		}
	}
}

// expected computes the reference result: the indexes of the lines of a
// Claude Code transcript whose conversation text contains term, read
// from the raw lines.
func expected(f *fixture, term string, fold bool) []int {
	var out []int
	for i, l := range f.lines {
		var rec map[string]any
		if json.Unmarshal(l, &rec) != nil {
			continue
		}
		var ss []string
		if m, ok := rec["message"].(map[string]any); ok {
			strs(m["content"], &ss)
		} else {
			strs(rec["content"], &ss)
		}
		for _, s := range ss {
			if strings.Contains(s, term) || (fold && strings.Contains(strings.ToLower(s), strings.ToLower(term))) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// messages lists the distinct message indexes of a session's hits.
func messages(hits []Hit, session string) []int {
	var out []int
	for _, h := range hits {
		if h.Session == session && h.Message >= 0 && !slices.Contains(out, h.Message) {
			out = append(out, h.Message)
		}
	}
	slices.Sort(out)
	return out
}

func TestHitsMatchTheRawTranscripts(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	for _, term := range []string{"README", "package", "function", "git status", "testdata", "import ("} {
		for _, fold := range []bool{false, true} {
			hits := find(t, x, Query{Pattern: term, IgnoreCase: fold})
			for _, f := range fixtures[:3] {
				want, got := expected(f, term, fold), messages(hits, f.session)
				if !slices.Equal(want, got) {
					t.Errorf("%q (ignore case %v) in %s: messages %v, the raw file has it in %v", term, fold, f.session, got, want)
				}
			}
			for _, h := range hits {
				checkHit(t, h, term, fold)
			}
		}
	}
}

// checkHit checks a hit against its raw transcript line and snapshot.
func checkHit(t *testing.T, h Hit, term string, fold bool) {
	t.Helper()
	var f *fixture
	for _, ff := range fixtures {
		if ff.session == h.Session {
			f = ff
		}
	}
	if h.Message < 0 {
		return
	}
	line := string(f.lines[h.Message])
	if !strings.Contains(line, strings.Fields(term)[0]) && !fold {
		t.Errorf("%s [%d]: the raw line has no %q", h.Session, h.Message, term)
	}
	for _, m := range h.Match {
		got := h.Line[m[0]:m[1]]
		if got != term && (!fold || !strings.EqualFold(got, term)) {
			t.Errorf("%s [%d]: match %q, want %q", h.Session, h.Message, got, term)
		}
	}
	// The snapshot must be the first one whose messages include this one.
	want := 1 + slices.IndexFunc(f.parts, func(n int) bool { return h.Message < n })
	if h.Seq != want {
		t.Errorf("%s [%d]: snapshot #%d, want #%d", h.Session, h.Message, h.Seq, want)
	}
}

func TestRegexpAndLimits(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	lit := find(t, x, Query{Pattern: "README"})
	re := find(t, x, Query{Pattern: `READ(ME|XX)`, Regexp: true})
	if len(lit) == 0 || len(lit) != len(re) {
		t.Fatalf("literal %d hits, regular expression %d", len(lit), len(re))
	}
	// A pattern without trigrams is answered by reading everything.
	short := find(t, x, Query{Pattern: `R.A`, Regexp: true})
	if len(short) < len(lit) {
		t.Errorf("R.A: %d hits, fewer than README's %d", len(short), len(lit))
	}
	if got := find(t, x, Query{Pattern: "README", Limit: 2}); len(got) != 2 || got[0].Line != lit[0].Line {
		t.Errorf("limit 2: %d hits", len(got))
	}
	one := find(t, x, Query{Pattern: "README", SessionsOnly: true})
	seen := map[string]bool{}
	for _, h := range one {
		if seen[h.Session] {
			t.Errorf("sessions only: %s twice", h.Session)
		}
		seen[h.Session] = true
	}
	for _, h := range lit {
		if !seen[h.Session] {
			t.Errorf("sessions only: %s missing", h.Session)
		}
	}
}

func TestFilters(t *testing.T) {
	dir, s := newRepo(t)
	ctx := context.Background()
	// A session that captured a file.
	doc := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "see the README please"}},
		"files": map[string]any{"docs/guide/README.md": map[string]any{"content": "x"}}}
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "with-file", Label: "capture"}); err != nil {
		t.Fatal(err)
	}
	_ = dir
	x := open(t, s)
	all := find(t, x, Query{Pattern: "README"})
	common := find(t, x, Query{Pattern: "the"})
	check := func(name string, q Query, keep func(Hit) bool) {
		t.Helper()
		base := common
		if q.Pattern = "the"; q.File != "" {
			q.Pattern, base = "README", all
		}
		got := find(t, x, q)
		var want []Hit
		for _, h := range base {
			if keep(h) {
				want = append(want, h)
			}
		}
		if len(got) == 0 || len(got) != len(want) {
			t.Errorf("%s: %d hits, want %d", name, len(got), len(want))
		}
		for _, h := range got {
			if !keep(h) {
				t.Errorf("%s: %+v kept", name, h)
			}
		}
	}
	check("session", Query{Session: "tool-*"}, func(h Hit) bool { return h.Session == "tool-heavy" })
	check("agent", Query{Agent: "claude-code"}, func(h Hit) bool { return h.Session != "plangate" && h.Session != "with-file" })
	check("agent by source", Query{Agent: "codex"}, func(h Hit) bool { return h.Session == "plangate" })
	check("label", Query{Label: "part-2"}, func(h Hit) bool { return h.Seq == 2 && h.Session != "with-file" })
	check("file", Query{File: "README.md"}, func(h Hit) bool { return h.Session == "with-file" })
	check("file path", Query{File: "docs/*/README.md"}, func(h Hit) bool { return h.Session == "with-file" })
	check("tool", Query{Tool: "Bash"}, func(h Hit) bool { return h.Tool == "Bash" })
	// The path itself is a hit.
	if !slices.ContainsFunc(all, func(h Hit) bool { return h.Field == FieldPath && h.Line == "docs/guide/README.md" }) {
		t.Error("no hit for the captured file's path")
	}
	// Hit times are the records' own times.
	times := map[time.Time]bool{}
	for _, h := range common {
		times[h.Time] = true
	}
	var sorted []time.Time
	for tm := range times {
		sorted = append(sorted, tm)
	}
	slices.SortFunc(sorted, time.Time.Compare)
	mid := sorted[len(sorted)/2]
	check("since", Query{Since: mid}, func(h Hit) bool { return !h.Time.Before(mid) })
	check("until", Query{Until: mid}, func(h Hit) bool { return !h.Time.After(mid) })
	for _, h := range common {
		checkTime(t, h)
	}
}

// checkTime compares a hit's time with its raw record's timestamp.
func checkTime(t *testing.T, h Hit) {
	for _, f := range fixtures[:3] {
		if f.session != h.Session || h.Message < 0 {
			continue
		}
		var rec struct{ Timestamp string }
		if json.Unmarshal(f.lines[h.Message], &rec) != nil || rec.Timestamp == "" {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, rec.Timestamp)
		if err == nil && !want.Equal(h.Time) {
			t.Errorf("%s [%d]: time %s, the record says %s", h.Session, h.Message, h.Time, want)
		}
	}
}

func TestIncrementalAndRewritten(t *testing.T) {
	_, s := newRepo(t)
	ctx := context.Background()
	x := open(t, s)
	if got := find(t, x, Query{Pattern: "zebra-quartz"}); len(got) != 0 {
		t.Fatalf("found %d before it was said", len(got))
	}
	doc, _, err := s.ReadRevision(ctx, "short")
	if err != nil {
		t.Fatal(err)
	}
	doc["messages"] = append(doc["messages"].([]any), map[string]any{"role": "user", "content": "now zebra-quartz"})
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "short"})
	if err != nil {
		t.Fatal(err)
	}
	got := find(t, x, Query{Pattern: "zebra-quartz"})
	if len(got) != 1 || got[0].Snapshot != e.ID.String() || got[0].Message != len(fixtures[0].lines) {
		t.Fatalf("after a save: %+v", got)
	}
	// After the session is rewritten, only what its history now holds is
	// found.
	if _, err := s.Drop(ctx, "short", false); err != nil {
		t.Fatal(err)
	}
	if got := find(t, x, Query{Pattern: "zebra-quartz"}); len(got) != 0 {
		t.Fatalf("after drop: %+v", got)
	}
	doc["messages"] = []any{map[string]any{"role": "user", "content": "again zebra-quartz"}}
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "short"}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, x, Query{Pattern: "zebra-quartz"}); len(got) != 1 || got[0].Message != 0 || got[0].Line != "again zebra-quartz" {
		t.Fatalf("after the session was recreated: %+v", got)
	}
}

// Each kind of damage to the index is detected, and a search still
// returns the same hits as before.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	want := find(t, x, Query{Pattern: "README"})
	segment := func() string {
		m, err := filepath.Glob(filepath.Join(x.dir, "seg-*"))
		if err != nil || len(m) == 0 {
			t.Fatal("no segment", err)
		}
		return m[0]
	}
	damages := map[string]func(){
		"deleted":            func() { os.RemoveAll(x.dir) },
		"manifest garbage":   func() { write(t, filepath.Join(x.dir, "manifest"), []byte("\x00garbage")) },
		"manifest truncated": func() { truncate(t, filepath.Join(x.dir, "manifest"), 40) },
		"segment truncated":  func() { truncate(t, segment(), 100) },
		"segment garbage":    func() { write(t, segment(), bytes.Repeat([]byte{0xa5}, 5000)) },
		"segment removed":    func() { os.Remove(segment()) },
		"segment flipped":    func() { flipMiddle(t, segment()) },
		"segment a dir": func() {
			p := segment()
			os.Remove(p)
			if err := os.Mkdir(p, 0o777); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range damages {
		damage()
		got, err := x.Search(context.Background(), Query{Pattern: "README"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.Line == b.Line && a.Snapshot == b.Snapshot }) {
			t.Errorf("%s: %d hits, want %d", name, len(got), len(want))
		}
	}
}

func write(t *testing.T, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string, n int64) {
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

// flipMiddle inverts the bytes in the middle third of a file, which
// holds text or postings, covered only by their own checksums.
func flipMiddle(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 3; i < len(data)/3*2; i++ {
		data[i] ^= 0xff
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentSearches(t *testing.T) {
	dir, s := newRepo(t)
	want := find(t, open(t, s), Query{Pattern: "README"})
	os.RemoveAll(DefaultDir(s.Paths().CommonDir))
	// Each goroutine opens its own store and index, as separate
	// processes would, and they race to build the index from scratch and
	// to merge segments.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			st, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			x, _ := Open(ctx, st, DefaultDir(st.Paths().CommonDir))
			x.segmentBytes, x.maxSegments = 4<<10, 2 // many segments, merged often
			for range 3 {
				got, err := x.Search(ctx, Query{Pattern: "README", IgnoreCase: i%2 == 0})
				if err == nil && i%2 == 1 && len(got) != len(want) {
					err = errors.New("a concurrent search found a different number of hits")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := find(t, open(t, s), Query{Pattern: "README"}); len(got) != len(want) {
		t.Errorf("after concurrent searches: %d hits, want %d", len(got), len(want))
	}
}

func TestManySmallSegmentsMerge(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	want := find(t, x, Query{Pattern: "README"})
	os.RemoveAll(x.dir)
	x.segmentBytes = 2 << 10
	if got := find(t, x, Query{Pattern: "README"}); len(got) != len(want) {
		t.Fatalf("small segments: %d hits, want %d", len(got), len(want))
	}
	before := segments(t, x)
	// The next update finds many small segments and merges them.
	x.segmentBytes, x.maxSegments = 1<<20, 3
	if _, err := s.Save(context.Background(), map[string]any{"messages": []any{"one more"}}, storage.SaveOptions{Session: "more"}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, x, Query{Pattern: "README"}); len(got) != len(want) {
		t.Fatalf("after merging: %d hits, want %d", len(got), len(want))
	}
	if after := segments(t, x); before <= x.maxSegments || after > 2 {
		t.Errorf("%d segments before the merge, %d after", before, after)
	}
}

func segments(t *testing.T, x *Index) int {
	m, err := readManifest(x.dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(m.segments)
}

func TestHostilePatterns(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	for name, q := range map[string]Query{
		"empty":        {Pattern: ""},
		"huge":         {Pattern: strings.Repeat("a", 5000)},
		"too large":    {Pattern: `(((a{100}){100}){100})`, Regexp: true},
		"unclosed":     {Pattern: `(ab`, Regexp: true},
		"not utf-8":    {Pattern: "\xff\xfe"},
		"bad glob":     {Pattern: "a", Session: "[x"},
		"backref-like": {Pattern: `\1`, Regexp: true},
	} {
		_, err := x.Search(context.Background(), q)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a PatternError", name, err)
		}
	}
	// Wide alternations and classes still give correct results, though
	// more slowly.
	got := find(t, x, Query{Pattern: `(R|r)(E|e)(A|a)(D|d)(M|m)(E|e)`, Regexp: true})
	if want := find(t, x, Query{Pattern: "readme", IgnoreCase: true}); len(got) != len(want) {
		t.Errorf("alternation: %d hits, -i: %d", len(got), len(want))
	}
}

func TestClipLongLines(t *testing.T) {
	line := strings.Repeat("é", 1000) + "needle" + strings.Repeat("x", 1000)
	out, m := clip(line, [][]int{{2000, 2006}})
	if len(out) > maxLine+8 || len(m) != 1 || out[m[0][0]:m[0][1]] != "needle" || !strings.HasPrefix(out, "…") {
		t.Errorf("clip: %q %v", out, m)
	}
}

// A search that finds the refs unchanged since the previous search reads
// none of them. So a ref rewritten in place, which leaves its directory's
// modification time unchanged, goes unnoticed, although reading the refs
// would notice it. (git never rewrites a ref in place: it renames a new
// file into place.) A ref updated the way git updates one is noticed.
// Within a second of the refs' last change no stamp is trusted, because a
// file system with coarse times could give the next change the same
// time, so then even a ref rewritten in place is noticed. The test sets
// the refs' times and the store's clock instead of waiting.
func TestUnchangedRefsAreNotRead(t *testing.T) {
	dir, s := newRepo(t)
	ctx := context.Background()
	x := open(t, s)
	save := func(session, text string) storage.ID {
		t.Helper()
		e, err := s.Save(ctx, map[string]any{"messages": []any{text}}, storage.SaveOptions{Session: session})
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	refs := filepath.Join(dir, ".git", "refs", "snap")
	setRef := func(session string, id storage.ID) { // rewrites the ref in place, leaving the directory unchanged
		t.Helper()
		f, err := os.OpenFile(filepath.Join(refs, session), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err) // not a loose ref: the test needs one
		}
		_, err = f.WriteString(id.String() + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	setTimes := func(at time.Time) { // as if the refs had last changed at time at
		t.Helper()
		for _, p := range []string{refs, filepath.Join(dir, ".git", "packed-refs")} {
			if err := os.Chtimes(p, at, at); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	stamp := func(x *Index) string {
		t.Helper()
		m, err := readManifest(x.dir)
		if err != nil {
			t.Fatal(err)
		}
		return m.stamp
	}

	// Hide short's newest snapshot by resetting its ref to the previous
	// value.
	before, err := s.SessionTip("short")
	if err != nil {
		t.Fatal(err)
	}
	hidden := save("short", "hidden zebra-quartz")
	setRef("short", before)
	setTimes(time.Now().Add(-time.Minute))
	find(t, x, Query{Pattern: "README"})
	recorded := stamp(x)
	if recorded == "" {
		t.Fatal("no stamp recorded")
	}
	setRef("short", hidden)
	if now := s.TipsStamp(); now != recorded {
		t.Fatalf("a ref rewritten in place changed the stamp: %q, was %q", now, recorded)
	}
	if got := find(t, x, Query{Pattern: "zebra-quartz"}); len(got) != 0 {
		t.Fatalf("the refs were read although their stamp had not changed: %+v", got)
	}

	// A save updates the ref the way git does, which changes the stamp.
	save("late", "late zebra-quartz")
	setTimes(time.Now().Add(-30 * time.Second))
	if got := find(t, x, Query{Pattern: "zebra-quartz"}); !sameSessions(got, "late", "short") {
		t.Fatalf("after a save: %+v", got)
	}

	// A second store whose clock reads half a second after the refs' last
	// change does not trust the stamp.
	hidden2 := save("short", "hidden okapi-quince")
	setRef("short", hidden)
	changed := time.Now().Add(-time.Hour)
	setTimes(changed)
	s2, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View, Now: func() time.Time { return changed.Add(time.Second / 2) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	x2 := open(t, s2)
	find(t, x2, Query{Pattern: "README"})
	if got := stamp(x2); got != "" {
		t.Fatalf("a stamp taken within a second of the change was recorded: %q", got)
	}
	setRef("short", hidden2)
	if got := find(t, x2, Query{Pattern: "okapi-quince"}); !sameSessions(got, "short") {
		t.Fatalf("within the second, a ref rewritten in place: %+v", got)
	}
}

// sameSessions reports whether hits holds exactly one hit in each of
// sessions.
func sameSessions(hits []Hit, sessions ...string) bool {
	var got []string
	for _, h := range hits {
		got = append(got, h.Session)
	}
	slices.Sort(got)
	return slices.Equal(got, sessions)
}

// A search with a limit returns the first hits of the same search
// without a limit, at every limit and across many segments.
func TestLimitedSearchIsThePrefixOfTheWhole(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	os.RemoveAll(x.dir)
	x.segmentBytes = 2 << 10 // many segments, each contributing candidates
	for _, pattern := range []string{"e", "the"} {
		all := find(t, x, Query{Pattern: pattern})
		if len(all) < 3 {
			t.Fatalf("%q: %d hits, too few to test limits", pattern, len(all))
		}
		// -l: each session's first hit in the unlimited search, in order.
		var firsts []Hit
		for _, h := range all {
			if len(firsts) == 0 || !slices.ContainsFunc(firsts, func(f Hit) bool { return f.Session == h.Session }) {
				firsts = append(firsts, h)
			}
		}
		if got := find(t, x, Query{Pattern: pattern, SessionsOnly: true}); !reflect.DeepEqual(got, firsts) {
			t.Fatalf("%q sessions only: %d hits, want the %d sessions' first hits", pattern, len(got), len(firsts))
		}
		for _, n := range []int{1, 2, len(all) / 2, len(all), len(all) + 5} {
			got := find(t, x, Query{Pattern: pattern, Limit: n})
			want := all[:min(n, len(all))]
			if len(got) != len(want) {
				t.Fatalf("%q limit %d: %d hits, want %d", pattern, n, len(got), len(want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%q limit %d: hit %d is %+v, the whole search's is %+v", pattern, n, i, got[i], want[i])
				}
			}
		}
	}
}
