//go:build !unix

package mmapfile

import (
	"context"
	"math"

	"github.com/git-snap/git-snap/internal/safefile"
)

// Map reads the whole file into memory, because mapping is not
// available on this platform. Only a regular file is read.
func Map(path string) ([]byte, func(), error) {
	data, err := safefile.ReadFile(context.Background(), path, "/", math.MaxInt32)
	return data, func() {}, err
}
