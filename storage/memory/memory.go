// Package memory keeps snapshots in memory. It provides a
// storage.Storage for testing code that works on a store, and for
// programs that need no repository. Wherever package storage specifies
// how a store behaves, it behaves as package gitstore does (storagetest
// checks both), and it keeps nothing after the process ends. It does no
// redaction: package gitstore redacts as it writes, and a memory store
// is never shared.
package memory

import (
	"crypto/sha1"
	"fmt"
	"sync"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Counter computes each snapshot's header totals from its records;
	// when nil, no totals are written.
	Counter storage.Counter
	// View reads a record as a message (for its time, and for diffs);
	// when nil, every record is read generically (snapshot.ViewMessage).
	View snapshot.Viewer
	// Now returns the time of new snapshots; time.Now when nil.
	Now func() time.Time
}

// refPrefix is the ref prefix a Store reports for its sessions, the same
// as gitstore's default.
const refPrefix = "refs/snap/"

// blockSize is the number of messages a block holds. It is small enough
// that readers that cache blocks see more than one.
const blockSize = 64

// Store keeps snapshots in memory. Unlike a gitstore.Store, it is safe
// for concurrent use. Writers sharing one Store lose no data, just as
// writers that each open a gitstore.Store on the same repository lose
// no data.
type Store struct {
	opts Options

	mu          sync.Mutex
	gen         int                   // incremented on every write, for TipsStamp
	tips        map[string]storage.ID // session → newest snapshot
	snaps       map[storage.ID]*stored
	objects     map[storage.ID][]byte // canonical messages, events and file contents by id
	blocks      map[storage.BlockID][]storage.MessageRef
	checkpoints map[string]map[string]storage.Checkpoint // session → name → checkpoint
	moved       []storage.Checkpoint                     // previous targets of names moved with force
}

// stored is one snapshot.
type stored struct {
	entry  storage.Entry
	rest   []byte // the canonical members other than messages, events and files
	blocks []storage.BlockID
	events []storage.ID
	files  []storage.FileID
}

var _ storage.Storage = (*Store)(nil)

// New returns an empty store.
func New(o Options) *Store {
	if o.View == nil {
		o.View = snapshot.ViewMessage
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Store{
		opts: o, tips: map[string]storage.ID{}, snaps: map[storage.ID]*stored{}, objects: map[storage.ID][]byte{},
		blocks: map[storage.BlockID][]storage.MessageRef{}, checkpoints: map[string]map[string]storage.Checkpoint{},
	}
}

// hashOf computes a content-based ID for parts, as git does for objects.
// The kind is hashed too, so that, for example, a message and a file
// with the same bytes get different IDs.
func hashOf(kind string, parts ...[]byte) storage.ID {
	h := sha1.New()
	h.Write([]byte(kind))
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d\x00", len(p))
		h.Write(p)
	}
	return storage.ID(h.Sum(nil))
}

// put stores canonical bytes and returns their id.
func (s *Store) put(kind string, data []byte) storage.ID {
	id := hashOf(kind, data)
	s.objects[id] = data
	return id
}

// parse parses canonical bytes into the values a store returns, with
// numbers as snapshot.Number, as gitstore does.
func parse(data []byte) (any, error) {
	return snapshot.Parse(data, snapshot.Limits{})
}

// Close does nothing, because a memory store holds no files open.
func (s *Store) Close() error { return nil }
