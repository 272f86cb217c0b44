package gitstore

import (
	"context"
	"reflect"
	"testing"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/storage"
)

// readBlocks reads a snapshot's messages block by block, as a search
// index does: the blocks, each block's messages, and the messages read.
func readBlocks(t *testing.T, s *Store, e storage.Entry) ([]storage.BlockID, [][]storage.MessageRef, []any) {
	t.Helper()
	ctx := context.Background()
	blocks, err := s.MessageBlocks(ctx, e)
	must(t, err)
	var refs [][]storage.MessageRef
	var msgs []any
	for _, b := range blocks {
		in, err := s.BlockMessages(ctx, b)
		must(t, err)
		refs = append(refs, in)
		for _, r := range in {
			if r.Index != len(msgs) {
				t.Fatalf("message %d comes as index %d", len(msgs), r.Index)
			}
			m, err := s.Message(ctx, r.ID)
			must(t, err)
			msgs = append(msgs, m)
		}
	}
	return blocks, refs, msgs
}

// MessageBlocks, BlockMessages and Message yield every message of a
// document that spans several blocks, in order, as Read returns them.
func TestMessageBlocksYieldEveryMessage(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	n := 2*layout.ChunkSize + 5
	e, err := s.Save(ctx, conversation(n), storage.SaveOptions{Session: "walk"})
	must(t, err)
	blocks, _, msgs := readBlocks(t, s, e)
	if len(blocks) != 3 {
		t.Errorf("%d messages in %d blocks, want 3", n, len(blocks))
	}
	doc, _, err := s.Read(ctx, e.ID)
	must(t, err)
	if want := doc["messages"].([]any); !reflect.DeepEqual(msgs, want) {
		t.Errorf("the blocks' messages differ from Read's: %d, want %d", len(msgs), len(want))
	}
	empty, err := s.Save(ctx, map[string]any{"messages": []any{}}, storage.SaveOptions{Session: "none"})
	must(t, err)
	if blocks, err := s.MessageBlocks(ctx, empty); err != nil || len(blocks) != 0 {
		t.Errorf("a snapshot without messages: %v %v", blocks, err)
	}
}

// Two snapshots that differ in their last block only share the ids of
// the blocks before it, and within it the ids of the messages kept.
func TestMessageBlocksUnchangedKeepTheirIDs(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	n := 2*layout.ChunkSize + 5
	doc := conversation(n)
	a, err := s.Save(ctx, doc, storage.SaveOptions{Session: "ids"})
	must(t, err)
	msgs := doc["messages"].([]any)
	msgs[n-1] = map[string]any{"id": "changed", "role": "user", "content": "changed"}
	doc["messages"] = append(msgs, map[string]any{"id": "added", "role": "assistant", "content": "added"})
	b, err := s.Save(ctx, doc, storage.SaveOptions{Session: "ids"})
	must(t, err)
	blocksA, refsA, _ := readBlocks(t, s, a)
	blocksB, refsB, msgsB := readBlocks(t, s, b)
	if len(blocksA) != 3 || len(blocksB) != 3 {
		t.Fatalf("blocks: %d and %d, want 3 and 3", len(blocksA), len(blocksB))
	}
	if blocksA[0] != blocksB[0] || blocksA[1] != blocksB[1] || blocksA[2] == blocksB[2] {
		t.Errorf("block ids: %v and %v; want the first two equal and the last different", blocksA, blocksB)
	}
	lastA, lastB := refsA[2], refsB[2]
	if len(lastB) != len(lastA)+1 {
		t.Fatalf("last block: %d messages, want %d", len(lastB), len(lastA)+1)
	}
	for i, r := range lastA {
		if same, kept := r.ID == lastB[i].ID, i < len(lastA)-1; same != kept {
			t.Errorf("message %d: same id %v, want %v", r.Index, same, kept)
		}
	}
	if len(msgsB) != n+1 || !reflect.DeepEqual(msgsB[n], doc["messages"].([]any)[n]) {
		t.Errorf("the added message was not read back: %d messages", len(msgsB))
	}
}
