package gitstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// An append makes exactly the tree a full save of the same document
// makes, whatever the chunk boundaries, files kept or replaced.
func TestAppendBuildsTheTreeSaveBuilds(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	r := rand.New(rand.NewPCG(21, 22))
	var msgs, events []any
	var files []snapshot.File
	for step := range 40 {
		d := randomDelta(r, step, len(msgs), len(events))
		if d.Files != nil {
			files = d.Files
		}
		e, added, err := s.Append(ctx, storage.SaveOptions{Session: "app"}, func(map[string]any) (storage.Delta, error) { return d, nil })
		if err != nil || !added {
			t.Fatalf("step %d: %v %v", step, added, err)
		}
		msgs, events = append(msgs, d.Messages...), append(events, d.Events...)
		full := fullDocument(d.Others, msgs, events, files)
		saved, err := s.Save(ctx, full, storage.SaveOptions{Session: "full"})
		if err != nil {
			t.Fatal(err)
		}
		if saved.Tree != e.Tree {
			got, _, _ := s.Read(ctx, e.ID)
			a, _ := snapshot.Marshal(got)
			b, _ := snapshot.Marshal(full)
			t.Fatalf("step %d: append tree %s, save tree %s\nappend: %.300s\nsave:   %.300s", step, e.Tree, saved.Tree, a, b)
		}
		if e.Header.Messages != len(msgs) || e.Header.Events != len(events) {
			t.Fatalf("step %d: header counts %d/%d", step, e.Header.Messages, e.Header.Events)
		}
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

// randomDelta adds up to 89 messages (copies of message number msgs) and
// 2 events after the msgs and events there are, and replaces the files
// every fourth step.
func randomDelta(r *rand.Rand, step, msgs, events int) storage.Delta {
	d := storage.Delta{Others: map[string]any{"step": snapshot.Number(fmt.Sprint(step)), "config": map[string]any{"m": "x"}}}
	for range r.IntN(90) {
		d.Messages = append(d.Messages, conversation(msgs + 1)["messages"].([]any)[msgs])
	}
	for range r.IntN(3) {
		d.Events = append(d.Events, map[string]any{"type": "post_tool", "n": snapshot.Number(fmt.Sprint(events + len(d.Events)))})
	}
	if step%4 == 0 {
		d.Files = []snapshot.File{
			{Path: "src/a.go", Mode: snapshot.ModeRegular, Content: []byte(fmt.Sprintf("package a // %d\n", step))},
			{Path: "bin/x", Mode: snapshot.ModeExecutable, Content: []byte{0xff, 0x00, byte(step)}},
		}
	}
	return d
}

// fullDocument is the document a run of deltas adds up to.
func fullDocument(rest map[string]any, msgs, events []any, files []snapshot.File) map[string]any {
	full := map[string]any{}
	for k, v := range rest {
		full[k] = v
	}
	if len(msgs) > 0 {
		full["messages"] = msgs
	}
	if len(events) > 0 {
		full["events"] = events
	}
	if files != nil {
		fm := map[string]any{}
		for _, f := range files {
			fm[f.Path] = fileEntry(f)
		}
		full["files"] = fm
	}
	return full
}

// fileEntry is a captured file as a document holds it.
func fileEntry(f snapshot.File) any {
	p := snapshot.Parts{Files: []snapshot.File{f}, Others: map[string]any{}}
	entry := map[string]any{}
	if f.Mode != snapshot.ModeRegular {
		entry["mode"] = f.Mode
	}
	if f.Path == "bin/x" {
		entry["encoding"] = "base64"
	}
	p.Others["files"] = map[string]any{f.Path: entry}
	return p.Join()["files"].(map[string]any)[f.Path]
}

func TestAppendNothingNewWritesNothing(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	d := storage.Delta{Others: map[string]any{"a": "b"}, Messages: []any{"m"}}
	if _, added, err := s.Append(ctx, storage.SaveOptions{Session: "n"}, func(map[string]any) (storage.Delta, error) { return d, nil }); err != nil || !added {
		t.Fatal(added, err)
	}
	_, added, err := s.Append(ctx, storage.SaveOptions{Session: "n"}, func(map[string]any) (storage.Delta, error) {
		return storage.Delta{Others: map[string]any{"a": "b"}}, nil
	})
	if err != nil || added {
		t.Errorf("empty delta: added %v, %v", added, err)
	}
	if tip, _ := s.SessionTip("n"); tip.IsZero() {
		t.Fatal("no tip")
	}
}

// next is given the tip's members other than messages, events and files
// (as Others reads them), so that giving them back changes nothing.
func TestAppendNextGetsTheOtherMembers(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	doc := conversation(3)
	doc["events"] = []any{}
	doc["files"] = map[string]any{"a.txt": map[string]any{"content": "a"}}
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "n"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_, added, err := s.Append(ctx, storage.SaveOptions{Session: "n"}, func(tip map[string]any) (storage.Delta, error) {
		got = tip
		return storage.Delta{Others: tip}, nil
	})
	if err != nil || added {
		t.Fatalf("the tip's own members: added %v, %v", added, err)
	}
	want := map[string]any{"config": doc["config"]}
	if !snapshot.Equal(got, want) {
		t.Errorf("next got %v, want %v", got, want)
	}
	if rest, err := s.Others(ctx, e.ID); err != nil || !snapshot.Equal(rest, want) {
		t.Errorf("Others: %v, %v; want %v", rest, err, want)
	}
}

// Appenders that keep their read position in the document never apply a
// delta twice, however they race: each recomputes from the tip it wins on.
func TestConcurrentAppendersKeepOneCopy(t *testing.T) {
	ctx := context.Background()
	dir, _ := newRepo(t)
	const total = 120
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := appendLines(ctx, dir, total); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s := openStore(t, dir)
	tip, _ := s.SessionTip("race")
	doc, _, err := s.Read(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc["messages"].([]any)
	if len(msgs) != total {
		t.Fatalf("%d lines, want %d", len(msgs), total)
	}
	for i, m := range msgs {
		if m != fmt.Sprintf("line %d", i) {
			t.Fatalf("line %d is %v", i, m)
		}
	}
	if out := git(t, dir, "fsck", "--strict", "--no-dangling"); strings.Contains(out, "error") {
		t.Fatal(out)
	}
}

// appendLines appends "line <pos>" messages, three at a time, reading
// and moving the read position "pos" kept in the document, until total.
func appendLines(ctx context.Context, dir string, total int64) error {
	s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		_, added, err := s.Append(ctx, storage.SaveOptions{Session: "race"}, func(tip map[string]any) (storage.Delta, error) {
			pos := int64(0)
			if n, ok := tip["pos"].(snapshot.Number); ok {
				pos, _ = n.Int64()
			}
			if pos >= total {
				return storage.Delta{Others: tip}, nil
			}
			end := min(pos+3, total)
			var d storage.Delta
			for i := pos; i < end; i++ {
				d.Messages = append(d.Messages, fmt.Sprintf("line %d", i))
			}
			d.Others = map[string]any{"pos": snapshot.Number(fmt.Sprint(end))}
			return d, nil
		})
		if err != nil || !added {
			return err
		}
	}
}
