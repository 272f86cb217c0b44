package gitstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// The invariant of docs/design.md §2: export(save(doc)) is JSON-equal to doc.
func TestRoundTripGeneratedDocuments(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 150 {
		doc := testdocs.Random(r)
		e, err := s.Save(ctx, doc, storage.SaveOptions{Session: fmt.Sprintf("gen%d", i%7)})
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		got, _, err := s.Read(ctx, e.ID)
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if !snapshot.Equal(got, doc) {
			a, _ := snapshot.Marshal(doc)
			b, _ := snapshot.Marshal(got)
			t.Fatalf("doc %d: read back differs\nsaved %s\nread  %s", i, a, b)
		}
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestRoundTripEveryTranscript(t *testing.T) {
	ctx := context.Background()
	transcripts, err := testdocs.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	dir, s := newRepo(t)
	for ti, tr := range transcripts {
		n := len(tr.Lines)
		for _, cut := range []int{1, n / 3, 2 * n / 3, n} {
			if cut == 0 {
				continue
			}
			doc, err := tr.Document(cut)
			if err != nil {
				t.Fatal(err)
			}
			e, err := s.Save(ctx, doc, storage.SaveOptions{Session: fmt.Sprintf("transcript-%d", ti), Label: tr.Name})
			if err != nil {
				t.Fatalf("%s at %d lines: %v", tr.Name, cut, err)
			}
			got, _, err := s.Read(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !snapshot.Equal(got, doc) {
				t.Fatalf("%s at %d lines: read back differs", tr.Name, cut)
			}
			if e.Header.Messages != cut {
				t.Errorf("%s: header counts %d messages, want %d", tr.Name, e.Header.Messages, cut)
			}
		}
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

// Store.Diff reads only what differs; it must agree with a comparison of
// the whole documents.
func TestSparseDiffAgreesWithFullCompare(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	r := rand.New(rand.NewPCG(13, 14))
	base := conversation(700)
	for i := range 40 {
		a, b := mutate(r, base), mutate(r, base)
		ea, err := s.Save(ctx, a, storage.SaveOptions{Session: "sparse"})
		if err != nil {
			t.Fatal(err)
		}
		eb, err := s.Save(ctx, b, storage.SaveOptions{Session: "sparse"})
		if err != nil {
			t.Fatal(err)
		}
		sparse, err := s.Diff(ctx, ea.ID, eb.ID)
		if err != nil {
			t.Fatal(err)
		}
		full, err := snapshot.Compare(a, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := snapshot.Marshal(jsonValue(t, sparse))
		jf, _ := snapshot.Marshal(jsonValue(t, full))
		if string(js) != string(jf) {
			t.Fatalf("case %d: sparse diff\n%s\nfull diff\n%s", i, js, jf)
		}
	}
}

// mutate changes a copy of a conversation: appends, edits, removals.
func mutate(r *rand.Rand, doc map[string]any) map[string]any {
	msgs := append([]any{}, doc["messages"].([]any)...)
	for range r.IntN(4) {
		switch i := r.IntN(len(msgs)); r.IntN(3) {
		case 0:
			msgs = append(msgs, map[string]any{"id": fmt.Sprintf("x%d", r.IntN(1e6)), "role": "assistant", "content": "more", "usage": map[string]any{"input_tokens": snapshot.Number("7"), "output_tokens": snapshot.Number("2")}})
		case 1: // an edit keeps the message's id
			old := msgs[i].(map[string]any)
			msgs[i] = map[string]any{"id": old["id"], "role": old["role"], "content": fmt.Sprintf("edited %d", r.IntN(100))}
		case 2:
			msgs = append(msgs[:i], msgs[i+1:]...)
		}
	}
	return map[string]any{"messages": msgs, "config": doc["config"]}
}

// jsonValue turns a value meant for encoding/json into a JSON value.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := snapshot.Parse(b, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
