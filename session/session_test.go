package session_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/storage/memory"
)

// The session layer's tests run on a store in memory: they check what
// package session reads from any store, not how git stores it.

var ctx = context.Background()

// transcripts lists real sessions, each with the agent that wrote it.
var transcripts = []struct{ agent, path string }{
	{"claude-code", "../testdata/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"},
	{"claude-code", "../testdata/claude-code/tool_heavy.jsonl"},
	{"claude-code", "../testdata/claude-code/subagent.jsonl"},
	{"codex", "../testdata/codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"},
	{"gemini", "../testdata/gemini/session-2026-01-16T11-01-file-ops-37b7abef.json"},
}

func newStore() *memory.Store {
	return memory.New(memory.Options{Counter: session.Counter{}, View: session.View})
}

// importTranscript imports a real transcript into s as git snap import
// does.
func importTranscript(t *testing.T, s storage.Storage, name, path string) (storage.Entry, map[string]any) {
	t.Helper()
	a, err := agent.Lookup(name, agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	in := capture.Ingest{Store: s, Adapter: a, MaxReadBytes: 1 << 30}
	e, added, err := in.Import(ctx, "s-"+filepath.Base(path), path)
	if err != nil || !added {
		t.Fatalf("import %s: added %v, %v", path, added, err)
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return e, doc
}

// The store's counts match what the agent counts in the whole document,
// both in the header the store writes and record by record as package
// session reads them.
func TestCountsAreTheAgentsOfTheWholeDocument(t *testing.T) {
	for _, tr := range transcripts {
		t.Run(filepath.Base(tr.path), func(t *testing.T) {
			s := newStore()
			e, doc := importTranscript(t, s, tr.agent, tr.path)
			want := agent.NumbersOf(doc, e.Header.Source)
			if !e.Header.Counted || !reflect.DeepEqual(e.Header.Totals, want.Totals()) {
				t.Errorf("header totals %+v, want %+v", e.Header.Totals, want.Totals())
			}
			rest, _, err := s.ReadWithoutMessages(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := session.CountRecords(ctx, s, e, rest)
			if err != nil {
				t.Fatal(err)
			}
			if got.ModelCalls != want.ModelCalls || got.ToolCalls != want.ToolCalls || got.Turns != want.Turns ||
				got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens || got.Records != want.Records {
				t.Errorf("counted %+v, want %+v", got, want)
			}
			if want.ModelCalls == 0 {
				t.Error("the transcript has no model call, so the test checks nothing")
			}
		})
	}
}

// LiveRecords returns the live records that the agent reads in the
// document, in order, and FirstLiveRecords returns the first of them.
func TestLiveRecordsAreTheDocuments(t *testing.T) {
	for _, tr := range transcripts {
		t.Run(filepath.Base(tr.path), func(t *testing.T) {
			s := newStore()
			e, doc := importTranscript(t, s, tr.agent, tr.path)
			want := agent.LiveMessages(doc)
			rest, _, err := s.ReadWithoutMessages(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := session.LiveRecords(ctx, s, e, rest)
			if err != nil {
				t.Fatal(err)
			}
			if recs.Len() != len(want) {
				t.Fatalf("%d live records, want %d", recs.Len(), len(want))
			}
			for k := range recs.Len() {
				got, err := recs.At(ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				if !snapshot.Equal(got, want[k]) {
					t.Fatalf("record %d differs", k)
				}
			}
			first, ok, err := session.FirstLiveRecords(ctx, s, e, rest, 5)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return // only the records themselves say which are live, so all were read
			}
			for k := range first.Len() {
				a, _ := first.At(ctx, k)
				b, _ := recs.At(ctx, k)
				if !snapshot.Equal(a, b) {
					t.Errorf("first record %d is not the live record %d", k, k)
				}
			}
		})
	}
}

// A session's first records are recognised as unchanged after an
// append, but not after they were rewritten. The viewer relies on this
// to cache a session's title.
func TestFirstRecordsSurviveAppendsNotRewrites(t *testing.T) {
	s := newStore()
	msgs := []any{
		map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "fix the login page"}},
		map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": "on it"}},
	}
	e, err := s.Save(ctx, map[string]any{"messages": msgs}, storage.SaveOptions{Session: "f"})
	if err != nil {
		t.Fatal(err)
	}
	rest, _, _ := s.ReadWithoutMessages(ctx, e.ID)
	first, ok, err := session.FirstLiveRecords(ctx, s, e, rest, 1)
	if err != nil || !ok {
		t.Fatalf("FirstLiveRecords: %v, %v", ok, err)
	}
	key, ok := first.Key(1)
	if !ok {
		t.Fatal("no key for the first record")
	}
	appended, _, err := s.Append(ctx, storage.SaveOptions{Session: "f"}, func(tip map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: []any{map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "and the tests"}}}, Others: tip}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if same, err := session.HasFirstRecords(ctx, s, appended, key); err != nil || !same {
		t.Errorf("after an append: same %v, %v; want the first record kept", same, err)
	}
	rewritten := slices.Clone(msgs)
	rewritten[0] = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "fix the signup page"}}
	e2, err := s.Save(ctx, map[string]any{"messages": rewritten}, storage.SaveOptions{Session: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if same, err := session.HasFirstRecords(ctx, s, e2, key); err != nil || same {
		t.Errorf("after a rewrite: same %v, %v; want the first record changed", same, err)
	}
}

func TestTitleAndFirstPrompt(t *testing.T) {
	s := newStore()
	e, doc := importTranscript(t, s, "claude-code", transcripts[0].path)
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	prompt, err := session.FirstPrompt(ctx, s, e.Header.Session)
	if err != nil || prompt == "" || prompt != agent.FirstPrompt(msgs, 120) {
		t.Errorf("FirstPrompt = %q, %v; want %q", prompt, err, agent.FirstPrompt(msgs, 120))
	}
	title, err := session.Title(ctx, s, e.Header.Session)
	if err != nil || title != agent.Title(doc) {
		t.Errorf("Title = %q, %v; want %q", title, err, agent.Title(doc))
	}
	if p, err := session.FirstPrompt(ctx, s, "none"); err != nil || p != "" {
		t.Errorf("FirstPrompt of no session = %q, %v", p, err)
	}
}

// The pickaxe finds the snapshot that changed how often a text occurs in
// the conversation, as git log -S finds a commit.
func TestPickaxe(t *testing.T) {
	s := newStore()
	say := func(text string) storage.Entry {
		e, _, err := s.Append(ctx, storage.SaveOptions{Session: "p"}, func(tip map[string]any) (storage.Delta, error) {
			return storage.Delta{Messages: []any{map[string]any{"role": "user", "content": text}}, Others: tip}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	first, withNeedle, without := say("hello"), say("find the needle here"), say("nothing")
	count := func(text string) int { return strings.Count(text, "needle") }
	for _, c := range []struct {
		e    storage.Entry
		want bool
	}{{first, false}, {withNeedle, true}, {without, false}} {
		got, err := session.Pickaxe(ctx, s, c.e, count, nil)
		if err != nil || got != c.want {
			t.Errorf("Pickaxe(seq %d) = %v, %v; want %v", c.e.Header.Seq, got, err, c.want)
		}
	}
	lines := func(line string) bool { return strings.Contains(line, "needle") }
	if got, err := session.Pickaxe(ctx, s, withNeedle, nil, lines); err != nil || !got {
		t.Errorf("Pickaxe by line = %v, %v; want true", got, err)
	}
}
