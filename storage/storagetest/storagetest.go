// Package storagetest checks that a storage.Storage behaves as package
// storage specifies. It provides one test suite that every
// implementation must pass; the tests of package gitstore and package
// storage/memory run it.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// NewRepository creates an empty repository for one test and returns a
// function that opens a store on it. Each call of that function opens a
// separate store, as concurrent writers each open their own.
type NewRepository func(t *testing.T) (open func() storage.Storage)

// Run runs the suite against the stores that newRepository opens.
func Run(t *testing.T, newRepository NewRepository) {
	tests := []struct {
		name string
		run  func(t *testing.T, open func() storage.Storage)
	}{
		{"SaveThenRead", testSaveThenRead},
		{"HistoryOfASession", testHistory},
		{"Append", testAppend},
		{"AppendsAtOnceLoseNothing", testConcurrentAppends},
		{"Sessions", testSessions},
		{"Checkpoints", testCheckpoints},
		{"Resolve", testResolve},
		{"Contents", testContents},
		{"Diff", testDiff},
		{"BadInput", testBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepository(t)) })
	}
}

var ctx = context.Background()

// document returns a document with every kind of member, in the form a
// store returns it when read back.
func document(t *testing.T, messages int) map[string]any {
	t.Helper()
	msgs := make([]any, messages)
	for i := range msgs {
		msgs[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": fmt.Sprintf("message %d", i)}
	}
	return parse(t, map[string]any{
		"messages": msgs,
		"events":   []any{map[string]any{"type": "start", "n": 1}},
		"config":   map[string]any{"model": "m", "temperature": 0.5, "tools": []any{"bash", "edit"}},
		"files": map[string]any{
			"main.go":   map[string]any{"content": "package main\n"},
			"run.sh":    map[string]any{"content": "#!/bin/sh\n", "mode": snapshot.ModeExecutable},
			"img/a.bin": map[string]any{"content": "AAEC/w==", "encoding": "base64"},
		},
	})
}

// parse returns v in the form a store returns it when read back.
func parse(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	data, err := snapshot.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := snapshot.ParseDocument(data, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testSaveThenRead(t *testing.T, open func() storage.Storage) {
	s := open()
	doc := document(t, 3)
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "s", Label: "first", Turn: 2})
	must(t, err)
	h := e.Header
	if e.ID.IsZero() || !e.Parent.IsZero() || h.Seq != 1 || h.Session != "s" || h.Label != "first" || h.Turn != 2 || h.Source != "cli" {
		t.Errorf("entry %+v: want a first snapshot of s, labelled first, turn 2, source cli", e)
	}
	if h.Messages != 3 || h.Events != 1 || h.Files != 3 {
		t.Errorf("counts %d messages, %d events, %d files; want 3, 1, 3", h.Messages, h.Events, h.Files)
	}
	got, re, err := s.Read(ctx, e.ID)
	must(t, err)
	if !snapshot.Equal(got, doc) {
		t.Errorf("read back\n%v\nwant\n%v", got, doc)
	}
	if re.ID != e.ID || re.Header.Seq != 1 {
		t.Errorf("Read's entry %+v, want %+v", re, e)
	}
	again, err := s.Entry(ctx, e.ID)
	must(t, err)
	if again.ID != e.ID || again.Tree != e.Tree || again.Header.Label != "first" || !again.Header.Time.Equal(h.Time) {
		t.Errorf("Entry = %+v, want %+v", again, e)
	}
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	total := snapshot.Totals{Messages: 3, ModelCalls: 1, OutputTokens: 42}
	e2, err := s.Save(ctx, doc, storage.SaveOptions{Session: "s", Time: when, Totals: &total})
	must(t, err)
	if !e2.Header.Time.Equal(when) || !e2.Header.Counted || e2.Header.Totals.OutputTokens != 42 {
		t.Errorf("header %+v: want the time and totals given", e2.Header)
	}
	if e2.Tree != e.Tree {
		t.Errorf("the same document saved twice has two trees, %s and %s", e.Tree, e2.Tree)
	}
}

func testHistory(t *testing.T, open func() storage.Storage) {
	s := open()
	var ids []storage.ID
	for i := range 4 {
		e, err := s.Save(ctx, document(t, i+1), storage.SaveOptions{Session: "h"})
		must(t, err)
		if i > 0 && e.Parent != ids[i-1] {
			t.Errorf("snapshot %d's parent %s, want %s", i+1, e.Parent, ids[i-1])
		}
		if e.Header.Seq != i+1 {
			t.Errorf("snapshot %d has seq %d", i+1, e.Header.Seq)
		}
		ids = append(ids, e.ID)
	}
	tip, err := s.SessionTip("h")
	must(t, err)
	if tip != ids[3] {
		t.Errorf("tip %s, want %s", tip, ids[3])
	}
	var walked []storage.ID
	must(t, s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error { walked = append(walked, e.ID); return nil }))
	slices.Reverse(walked)
	if !slices.Equal(walked, ids) {
		t.Errorf("walk %v, want %v newest first", walked, ids)
	}
	n := 0
	must(t, s.Walk(ctx, []storage.ID{tip}, func(storage.Entry) error {
		n++
		if n == 2 {
			return storage.ErrStop
		}
		return nil
	}))
	if n != 2 {
		t.Errorf("ErrStop ended the walk after %d snapshots, want 2", n)
	}
}

func testAppend(t *testing.T, open func() storage.Storage) {
	s := open()
	first := true
	e, added, err := s.Append(ctx, storage.SaveOptions{Session: "a"}, func(tipRest map[string]any) (storage.Delta, error) {
		if tipRest != nil {
			t.Errorf("a new session's tip has members %v", tipRest)
		}
		first = false
		return storage.Delta{Messages: []any{"one", "two"}, Others: map[string]any{"cursor": 2}, Files: []snapshot.File{{Path: "a.txt", Mode: snapshot.ModeRegular, Content: []byte("a\n")}}}, nil
	})
	must(t, err)
	if first || !added || e.Header.Seq != 1 || e.Header.Messages != 2 {
		t.Fatalf("first append: %+v added %v", e, added)
	}
	e2, added, err := s.Append(ctx, storage.SaveOptions{Session: "a", Label: "more"}, func(tipRest map[string]any) (storage.Delta, error) {
		if !snapshot.Equal(tipRest, parse(t, map[string]any{"cursor": 2})) {
			t.Errorf("tip's members %v, want the cursor alone", tipRest)
		}
		return storage.Delta{Messages: []any{"three"}, Events: []any{"e"}, Others: map[string]any{"cursor": 3}, Turn: 7}, nil
	})
	must(t, err)
	if !added || e2.Parent != e.ID || e2.Header.Turn != 7 || e2.Header.Label != "more" {
		t.Errorf("second append %+v added %v", e2, added)
	}
	doc, _, err := s.Read(ctx, e2.ID)
	must(t, err)
	want := parse(t, map[string]any{"messages": []any{"one", "two", "three"}, "events": []any{"e"}, "cursor": 3,
		"files": map[string]any{"a.txt": map[string]any{"content": "a\n"}}})
	if !snapshot.Equal(doc, want) {
		t.Errorf("after two appends\n%v\nwant\n%v (the tip's files kept)", doc, want)
	}
	same, added, err := s.Append(ctx, storage.SaveOptions{Session: "a"}, func(tipRest map[string]any) (storage.Delta, error) {
		return storage.Delta{Others: tipRest}, nil
	})
	must(t, err)
	if added || !same.ID.IsZero() {
		t.Errorf("an empty delta wrote %+v", same)
	}
	if tip, _ := s.SessionTip("a"); tip != e2.ID {
		t.Errorf("an empty delta moved the tip to %s", tip)
	}
	if _, _, err := s.Append(ctx, storage.SaveOptions{Session: "a"}, func(map[string]any) (storage.Delta, error) {
		return storage.Delta{Others: map[string]any{"messages": []any{"replaced"}}}, nil
	}); err == nil {
		t.Error("a delta replaced the messages instead of appending")
	}
	fail := errors.New("next failed")
	if _, _, err := s.Append(ctx, storage.SaveOptions{Session: "a"}, func(map[string]any) (storage.Delta, error) { return storage.Delta{}, fail }); !errors.Is(err, fail) {
		t.Errorf("Append returned %v, want next's error", err)
	}
}

func testConcurrentAppends(t *testing.T, open func() storage.Storage) {
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := open()
		wg.Go(func() {
			for i := range each {
				_, _, err := s.Append(ctx, storage.SaveOptions{Session: "busy"}, func(tipRest map[string]any) (storage.Delta, error) {
					return storage.Delta{Messages: []any{fmt.Sprintf("w%d-%d", w, i)}, Others: tipRest}, nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := open()
	tip, err := s.SessionTip("busy")
	must(t, err)
	doc, e, err := s.Read(ctx, tip)
	must(t, err)
	msgs, _ := doc["messages"].([]any)
	seen := map[any]bool{}
	for _, m := range msgs {
		seen[m] = true
	}
	if len(msgs) != writers*each || len(seen) != writers*each || e.Header.Seq != writers*each {
		t.Errorf("%d messages (%d different), seq %d; want %d of each", len(msgs), len(seen), e.Header.Seq, writers*each)
	}
}

func testSessions(t *testing.T, open func() storage.Storage) {
	s := open()
	stamp := s.TipsStamp()
	a, err := s.Save(ctx, document(t, 1), storage.SaveOptions{Session: "alpha"})
	must(t, err)
	b, err := s.Save(ctx, document(t, 2), storage.SaveOptions{Session: "beta"})
	must(t, err)
	tips, err := s.SessionTips(ctx)
	must(t, err)
	if len(tips) != 2 || tips["alpha"] != a.ID || tips["beta"] != b.ID {
		t.Errorf("SessionTips = %v", tips)
	}
	refs, err := s.Tips(ctx)
	must(t, err)
	found := map[string]storage.ID{}
	for ref, id := range refs {
		if session, remote, ok := s.SessionOfRef(ref); ok && remote == "" {
			found[session] = id
		}
	}
	if len(found) != 2 || found["alpha"] != a.ID || found["beta"] != b.ID {
		t.Errorf("Tips = %v, read as sessions %v", refs, found)
	}
	if none, err := s.SessionTip("gamma"); err != nil || !none.IsZero() {
		t.Errorf("SessionTip of no session = %s, %v; want the zero id", none, err)
	}
	if now := s.TipsStamp(); now != "" && now == stamp {
		t.Errorf("TipsStamp %q did not change when sessions were saved", now)
	}
}

func testCheckpoints(t *testing.T, open func() storage.Storage) {
	s := open()
	one, err := s.Save(ctx, document(t, 1), storage.SaveOptions{Session: "c"})
	must(t, err)
	two, err := s.Save(ctx, document(t, 2), storage.SaveOptions{Session: "c"})
	must(t, err)
	cp, err := s.SetCheckpoint(ctx, "green", one.ID, "tests pass", false)
	must(t, err)
	if cp.Session != "c" || cp.Name != "green" || cp.Target != one.ID || cp.Message != "tests pass" || cp.Moved {
		t.Errorf("checkpoint %+v", cp)
	}
	_, err = s.SetCheckpoint(ctx, "green", two.ID, "", false)
	var exists *storage.CheckpointExistsError
	if !errors.As(err, &exists) || exists.Target != one.ID {
		t.Errorf("moving a name without force: %v, want a CheckpointExistsError naming %s", err, one.ID)
	}
	if _, err := s.SetCheckpoint(ctx, "green", two.ID, "", true); err != nil {
		t.Fatal(err)
	}
	list, err := s.Checkpoints(ctx, "c", false)
	must(t, err)
	if len(list) != 1 || list[0].Target != two.ID {
		t.Errorf("checkpoints %+v, want green on the second snapshot", list)
	}
	all, err := s.Checkpoints(ctx, "c", true)
	must(t, err)
	if len(all) != 2 || !slices.ContainsFunc(all, func(c storage.Checkpoint) bool { return c.Moved && c.Target == one.ID }) {
		t.Errorf("with moved ones: %+v, want the previous target too", all)
	}
	if id, err := s.Resolve(ctx, "snap/c/green"); err != nil || id != two.ID {
		t.Errorf("Resolve(snap/c/green) = %s, %v; want %s", id, err, two.ID)
	}
	must(t, s.DeleteCheckpoint(ctx, "c", "green"))
	var nf *storage.NotFoundError
	if err := s.DeleteCheckpoint(ctx, "c", "green"); !errors.As(err, &nf) {
		t.Errorf("deleting it again: %v, want a NotFoundError", err)
	}
	if _, err := s.SetCheckpoint(ctx, "../x", one.ID, "", false); err == nil {
		t.Error("a checkpoint named ../x was set")
	}
}

func testResolve(t *testing.T, open func() storage.Storage) {
	s := open()
	one, err := s.Save(ctx, document(t, 1), storage.SaveOptions{Session: "resolve-me"})
	must(t, err)
	two, err := s.Save(ctx, document(t, 2), storage.SaveOptions{Session: "resolve-me"})
	must(t, err)
	for rev, want := range map[string]storage.ID{
		"resolve-me": two.ID, "resolve-me~1": one.ID, "resolve-me^": one.ID, "resolve-me~0": two.ID,
		one.ID.String(): one.ID, one.ID.String()[:10]: one.ID, "resolve": two.ID,
	} {
		if got, err := s.Resolve(ctx, rev); err != nil || got != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", rev, got, err, want)
		}
	}
	for _, rev := range []string{"nosuch", "resolve-me~2", "0000000000000000000000000000000000000000"} {
		if got, err := s.Resolve(ctx, rev); err == nil {
			t.Errorf("Resolve(%q) = %s, want an error", rev, got)
		}
	}
}

func testContents(t *testing.T, open func() storage.Storage) {
	s := open()
	doc := document(t, 150) // more than one block in every store
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "big"})
	must(t, err)
	blocks, err := s.MessageBlocks(ctx, e)
	must(t, err)
	var msgs []any
	for _, b := range blocks {
		refs, err := s.BlockMessages(ctx, b)
		must(t, err)
		for _, r := range refs {
			if r.Index != len(msgs) {
				t.Fatalf("message %d is stored as %d", len(msgs), r.Index)
			}
			m, err := s.Message(ctx, r.ID)
			must(t, err)
			msgs = append(msgs, m)
		}
	}
	if !snapshot.Equal(msgs, doc["messages"]) {
		t.Error("the messages read block by block are not the document's")
	}
	first, err := s.FirstBlocks(ctx, e, 1)
	must(t, err)
	if len(first) != 1 || first[0] != blocks[0] {
		t.Errorf("FirstBlocks(1) = %v, want the first of %v", first, blocks)
	}
	rest, _, err := s.ReadWithoutMessages(ctx, e.ID)
	must(t, err)
	if _, ok := rest["messages"]; ok || rest["events"] == nil || rest["files"] == nil {
		t.Errorf("ReadWithoutMessages gave members %v: want events and files, no messages", keys(rest))
	}
	others, err := s.Others(ctx, e.ID)
	must(t, err)
	if !snapshot.Equal(others["config"], doc["config"]) || others["messages"] != nil || others["events"] != nil {
		t.Errorf("Others gave members %v: want the config, no messages or events", keys(others))
	}
	set, err := s.Files(ctx, e)
	must(t, err)
	if len(set.Files) != 3 || set.ID == (storage.FileSetID{}) {
		t.Fatalf("files %+v", set)
	}
	files, _ := doc["files"].(map[string]any)
	for _, f := range set.Files {
		data, err := s.Blob(ctx, f.Blob)
		must(t, err)
		entry, _ := files[f.Path].(map[string]any)
		want := entry["content"]
		if entry["encoding"] == "base64" {
			want = "AAEC/w=="
			data = []byte("AAEC/w==") // the bytes are checked by Read
		}
		if string(data) != want {
			t.Errorf("%s holds %q, want %q", f.Path, data, want)
		}
	}
	e2, err := s.Save(ctx, document(t, 151), storage.SaveOptions{Session: "big"})
	must(t, err)
	set2, err := s.Files(ctx, e2)
	must(t, err)
	if set2.ID != set.ID {
		t.Error("the same files have two file set ids")
	}
	none, err := s.Save(ctx, map[string]any{"messages": []any{"x"}}, storage.SaveOptions{Session: "nofiles"})
	must(t, err)
	if set, err := s.Files(ctx, none); err != nil || set.ID != (storage.FileSetID{}) || len(set.Files) != 0 {
		t.Errorf("files of a snapshot with none: %+v, %v", set, err)
	}
}

func testDiff(t *testing.T, open func() storage.Storage) {
	s := open()
	a, err := s.Save(ctx, document(t, 2), storage.SaveOptions{Session: "d"})
	must(t, err)
	b, err := s.Save(ctx, document(t, 3), storage.SaveOptions{Session: "d"})
	must(t, err)
	d, err := s.Diff(ctx, a.ID, b.ID)
	must(t, err)
	if len(d.Messages) != 1 || d.Messages[0].Op != snapshot.OpAdded {
		t.Errorf("diff %+v, want one message added", d.Messages)
	}
	same, err := s.Diff(ctx, a.ID, a.ID)
	must(t, err)
	if !same.Empty() {
		t.Errorf("a snapshot differs from itself: %+v", same)
	}
}

func testBadInput(t *testing.T, open func() storage.Storage) {
	s := open()
	for _, name := range []string{"", "../x", "-rf", "a b", "x.lock"} {
		if _, err := s.Save(ctx, document(t, 1), storage.SaveOptions{Session: name}); err == nil {
			t.Errorf("a session named %q was saved", name)
		}
	}
	if _, err := s.Save(ctx, map[string]any{"messages": "not an array"}, storage.SaveOptions{Session: "bad"}); err == nil {
		t.Error("messages that are no array were saved")
	}
	if _, err := s.Save(ctx, map[string]any{"files": map[string]any{"../escape": map[string]any{"content": "x"}}}, storage.SaveOptions{Session: "bad"}); err == nil {
		t.Error("a file outside the work tree was saved")
	}
	if tip, _ := s.SessionTip("bad"); !tip.IsZero() {
		t.Error("a refused save left a session behind")
	}
	if _, err := s.Entry(ctx, storage.NewID("1111111111111111111111111111111111111111")); err == nil {
		t.Error("Entry of an id that names nothing gave no error")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
