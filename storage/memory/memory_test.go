package memory_test

import (
	"testing"

	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/storage/memory"
	"github.com/git-snap/git-snap/storage/storagetest"
)

func TestStorage(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) func() storage.Storage {
		s := memory.New(memory.Options{})
		return func() storage.Storage { return s }
	})
}
