package pack

import (
	"bytes"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// FuzzPack: any index and pack either fail to open or read each object
// they list to its content or an error; nothing panics, and nothing
// larger than the limit is made.
func FuzzPack(f *testing.F) {
	for _, large := range []bool{false, true} {
		idx, pack, _ := samplePack(large)
		f.Add(idx, pack)
	}
	b := newPackBuilder()
	b.object(plumbing.BlobObject, []byte("first"))
	b.raw(someID, []byte{0xe0})
	idx, pack := b.finish(false)
	f.Add(idx, pack)
	f.Add(idx, []byte{0xe0})

	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, idx, pack []byte) {
		p, err := newFile("fuzz.pack", idx, bytes.NewReader(pack), int64(len(pack)))
		if err != nil {
			return
		}
		s := setOf(Options{MaxObjectBytes: limit}, p)
		for i := range min(p.count, 64) {
			var id storage.ID
			copy(id[:], p.nameAt(i))
			if _, data, err := s.Find(id); err == nil && len(data) > limit {
				t.Fatalf("%s: %d bytes, over the limit", id, len(data))
			}
			s.WithPrefix(id.String()[:4]) // the names need not be sorted: only no panic
		}
	})
}
