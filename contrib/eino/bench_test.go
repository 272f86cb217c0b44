package eino_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/compose"

	"github.com/git-snap/git-snap/contrib/eino"
)

// memoryStore is the in-memory store of Eino's own tests: the cost of a
// checkpoint without persistence, to measure git-snap's against.
type memoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	return v, ok, nil
}

func (s *memoryStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

// stores gives each benchmark the two stores side by side.
func stores(b *testing.B) map[string]compose.CheckPointStore {
	return map[string]compose.CheckPointStore{
		"memory":   &memoryStore{m: map[string][]byte{}},
		"git-snap": eino.New(openRepo(b, newRepo(b)), eino.Options{}),
	}
}

// realCheckpoint is the checkpoint the review graph writes at its first
// interrupt (about 1 KB).
func realCheckpoint(b *testing.B) []byte {
	ctx := context.Background()
	m := &memoryStore{m: map[string][]byte{}}
	r, err := reviewGraph(ctx, m)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = r.Invoke(ctx, "a post", compose.WithCheckPointID("x"))
	return m.m["x"]
}

// BenchmarkSet is one Set of a real checkpoint: with git-snap, a commit
// on the session's ref (each iteration a new snapshot of one session).
func BenchmarkSet(b *testing.B) {
	ctx := context.Background()
	data := realCheckpoint(b)
	for _, name := range []string{"memory", "git-snap"} {
		b.Run(name, func(b *testing.B) {
			s := stores(b)[name]
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := s.Set(ctx, "bench", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGet reads the newest checkpoint back.
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	data := realCheckpoint(b)
	for _, name := range []string{"memory", "git-snap"} {
		b.Run(name, func(b *testing.B) {
			s := stores(b)[name]
			for range 10 { // a session with some history
				if err := s.Set(ctx, "bench", data); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, ok, err := s.Get(ctx, "bench"); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

// BenchmarkGraphToInterrupt runs the review graph from its start to its
// first interrupt, which writes one checkpoint: what a step of a
// human-in-the-loop graph costs with each store.
func BenchmarkGraphToInterrupt(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "git-snap"} {
		b.Run(name, func(b *testing.B) {
			r, err := reviewGraph(ctx, stores(b)[name])
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				_, err := r.Invoke(ctx, "a post", compose.WithCheckPointID(fmt.Sprint("run-", i)))
				if _, ok := compose.ExtractInterruptInfo(err); !ok {
					b.Fatal(err)
				}
			}
		})
	}
}
