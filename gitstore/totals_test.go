package gitstore_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// gitOut runs the real git in dir.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func openCounting(t *testing.T, dir string, count func(doc map[string]any, source string) snapshot.Totals) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(context.Background(), dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	gitstore.SetCounter(s, count)
	t.Cleanup(func() { s.Close() })
	return s
}

func bareRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	if _, err := gitstore.InitBare(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The totals a save counts are in the commit's trailers as the real git
// reads them, equal to what counting the document read back gives.
func TestTotalsTrailersAsGitReadsThem(t *testing.T) {
	ctx := context.Background()
	long, err := testdocs.Longest()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := long.Document(len(long.Lines))
	if err != nil {
		t.Fatal(err)
	}
	dir := bareRepo(t)
	s := openCounting(t, dir, agent.CountTotals)
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "long", Source: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := agent.NumbersOf(back, "claude-code")
	if want.ModelCalls == 0 || want.ToolCalls == 0 || want.OutputTokens == 0 {
		t.Fatalf("the transcript counts nothing: %+v", want)
	}
	trailer := func(key string) string {
		return gitOut(t, dir, "log", "-1", "--format=%(trailers:key="+key+",valueonly,separator=%x2C)", "refs/snap/long")
	}
	for key, n := range map[string]int64{
		"Snap-Conversation-Messages": int64(want.Messages), "Snap-Model-Calls": int64(want.ModelCalls), "Snap-Tool-Calls": int64(want.ToolCalls), "Snap-Tool-Failures": int64(want.ToolFailures),
		"Snap-Turns": int64(want.Turns), "Snap-Input-Tokens": want.InputTokens, "Snap-Cache-Read-Tokens": want.CacheReadTokens,
		"Snap-Cache-Write-Tokens": want.CacheWriteTokens, "Snap-Output-Tokens": want.OutputTokens,
	} {
		got := trailer(key)
		if n == 0 && got == "" {
			continue
		}
		if got != strconv.FormatInt(n, 10) {
			t.Errorf("git reads %s: %q, want %d", key, got, n)
		}
	}
	if got := trailer("Snap-Counted"); got != "true" {
		t.Errorf("Snap-Counted = %q", got)
	}
	if got := trailer("Snap-Last-Record"); got != want.Last.UTC().Format(time.RFC3339Nano) {
		t.Errorf("Snap-Last-Record = %q, want %v", got, want.Last)
	}
	models := strings.Split(trailer("Snap-Model-Usage"), ",")
	if len(models) != len(want.ByModel) {
		t.Errorf("Snap-Model-Usage = %q, want %d models", models, len(want.ByModel))
	}
	// The snapshot is dated by its newest record, and so is its commit.
	if got := gitOut(t, dir, "log", "-1", "--format=%cI", "refs/snap/long"); !sameTime(got, want.Last) {
		t.Errorf("commit date %s, newest record %v", got, want.Last)
	}
	// Read back through the store, the header gives the same numbers.
	sessions, err := s.Sessions(ctx)
	if err != nil || len(sessions) != 1 {
		t.Fatal(sessions, err)
	}
	got, ok := agent.NumbersOfHeader(sessions[0].Tip.Header)
	got.Cost, want.Cost = nil, nil
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("header numbers\n%+v\nwant\n%+v", got, want)
	}
}

func sameTime(git string, t time.Time) bool {
	at, err := time.Parse(time.RFC3339, git)
	return err == nil && at.Equal(t.Truncate(time.Second))
}

// A snapshot written before totals existed is counted from its document,
// once: the second call reads no document.
func TestTotalsOfOldSnapshotsCountedOnce(t *testing.T) {
	ctx := context.Background()
	dir := bareRepo(t)
	old := openCounting(t, dir, nil) // writes no totals, as older versions did
	doc := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "hi", "time": "2024-05-01T10:00:00Z"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{}}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 3}, "time": "2024-05-01T10:00:05Z"},
	}}
	e, err := old.Save(ctx, doc, storage.SaveOptions{Session: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Header.Counted || strings.Contains(gitOut(t, dir, "log", "-1", "--format=%B", "refs/snap/old"), "Snap-Counted") {
		t.Fatal("an uncounted save wrote totals")
	}
	calls := 0
	count := func(d map[string]any, source string) snapshot.Totals {
		calls++
		return agent.CountTotals(d, source)
	}
	s := openCounting(t, dir, count)
	sessions, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tips := []storage.Entry{sessions[0].Tip}
	got, ok, err := s.Totals(ctx, tips)
	if err != nil || !ok[0] || calls != 1 {
		t.Fatalf("Totals: %+v %v %v, %d counts", got, ok, err, calls)
	}
	back, _, _ := s.Read(ctx, e.ID)
	if want := agent.CountTotals(back, ""); !reflect.DeepEqual(got[0], want) || want.ToolCalls != 1 || want.OutputTokens != 3 {
		t.Errorf("totals %+v, want %+v", got[0], want)
	}
	again, _, err := openCounting(t, dir, count).Totals(ctx, tips)
	if err != nil || calls != 1 || !reflect.DeepEqual(again, got) {
		t.Errorf("second call: %+v %v, %d counts", again, err, calls)
	}
	// A cache that does not read is rebuilt, never believed.
	must(t, os.WriteFile(filepath.Join(dir, "snap", "cache", "totals"), []byte("git-snap totals cache 1\n"+e.ID.String()+" {\"ToolCalls\":\n"), 0o666))
	third, _, err := openCounting(t, dir, count).Totals(ctx, tips)
	if err != nil || calls != 2 || !reflect.DeepEqual(third, got) {
		t.Errorf("after a broken cache: %+v %v, %d counts", third, err, calls)
	}
}

// A snapshot counted before the conversation's messages were (its
// header has records and no such count) is counted again from its
// document, once.
func TestTotalsWithoutConversationMessagesCountedAgain(t *testing.T) {
	ctx := context.Background()
	dir := bareRepo(t)
	older := openCounting(t, dir, func(d map[string]any, source string) snapshot.Totals {
		tt := agent.CountTotals(d, source)
		tt.Messages = 0 // as releases before the count wrote them
		return tt
	})
	doc := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "content": "hello", "usage": map[string]any{"input_tokens": 10, "output_tokens": 3}},
	}}
	e, err := older.Save(ctx, doc, storage.SaveOptions{Session: "older"})
	if err != nil || !e.Header.Counted || e.Header.Totals.Messages != 0 {
		t.Fatalf("%+v %v", e.Header, err)
	}
	calls := 0
	s := openCounting(t, dir, func(d map[string]any, source string) snapshot.Totals {
		calls++
		return agent.CountTotals(d, source)
	})
	for range 2 {
		got, ok, err := s.Totals(ctx, []storage.Entry{e})
		if err != nil || !ok[0] || got[0].Messages != 2 || got[0].OutputTokens != 3 || calls != 1 {
			t.Fatalf("totals %+v %v %v, %d counts", got, ok, err, calls)
		}
	}
}

// An imported conversation keeps its dates: the snapshot's time is its
// newest record's, the session's start its oldest's, in git's eyes too.
func TestImportedHistoryKeepsItsDates(t *testing.T) {
	ctx := context.Background()
	dir := bareRepo(t)
	s := openCounting(t, dir, nil)
	doc := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "a", "time": "2023-02-01T09:00:00Z"},
		map[string]any{"role": "assistant", "content": "b", "time": "2023-02-01T11:30:00Z"},
		map[string]any{"role": "user", "content": "no time"},
	}}
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "imp"})
	if err != nil {
		t.Fatal(err)
	}
	newest := time.Date(2023, 2, 1, 11, 30, 0, 0, time.UTC)
	if !e.Header.Time.Equal(newest) || !e.Header.Started.Equal(time.Date(2023, 2, 1, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("time %v, started %v", e.Header.Time, e.Header.Started)
	}
	if got := gitOut(t, dir, "log", "-1", "--format=%cI %aI", "refs/snap/imp"); got != "2023-02-01T11:30:00+00:00 2023-02-01T11:30:00+00:00" {
		t.Errorf("git dates: %s", got)
	}
	// A second snapshot keeps the session's start; a given time wins.
	given := time.Date(2023, 2, 2, 0, 0, 0, 0, time.UTC)
	e2, err := s.Save(ctx, doc, storage.SaveOptions{Session: "imp", Time: given})
	if err != nil || !e2.Header.Time.Equal(given) || !e2.Header.Started.Equal(e.Header.Started) {
		t.Errorf("second: %+v %v", e2.Header, err)
	}
	// Records without times: the snapshot is dated now.
	e3, err := s.Save(ctx, map[string]any{"messages": []any{"plain"}}, storage.SaveOptions{Session: "plain"})
	if err != nil || time.Since(e3.Header.Time) > time.Minute || !e3.Header.Started.Equal(e3.Header.Time) {
		t.Errorf("untimed: %+v %v", e3.Header, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
