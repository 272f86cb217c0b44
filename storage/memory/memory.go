// Package memory keeps snapshots in memory: a storage.Storage for tests
// of what works on a store, and for programs that need no repository.
// It behaves as package gitstore does where storage says how a store
// behaves (storagetest holds both to it), and keeps nothing when the
// process ends. It redacts nothing: package gitstore does that as it
// writes, and a memory store is never shared.
package memory

import (
	"crypto/sha1"
	"fmt"
	"sync"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Counter counts each snapshot's records into its header's totals;
	// nil writes none.
	Counter storage.Counter
	// View reads a record as a message (for its time, and for diffs);
	// nil reads every record generically (snapshot.ViewMessage).
	View snapshot.Viewer
	// Now gives the time of new snapshots; time.Now when nil.
	Now func() time.Time
}

// refPrefix is where a Store says its sessions are, as gitstore's
// default.
const refPrefix = "refs/snap/"

// blockSize is how many messages a block holds, so that readers that
// remember blocks see more than one.
const blockSize = 64

// Store keeps snapshots in memory. Unlike gitstore's, it is safe for
// concurrent use: writers that share one lose nothing, as writers that
// each open a gitstore.Store on one repository lose nothing.
type Store struct {
	opts Options

	mu          sync.Mutex
	gen         int                   // bumped on every write, for TipsStamp
	tips        map[string]storage.ID // session → newest snapshot
	snaps       map[storage.ID]*stored
	objects     map[storage.ID][]byte // canonical messages, events and file contents by id
	blocks      map[storage.BlockID][]storage.MessageRef
	checkpoints map[string]map[string]storage.Checkpoint // session → name → checkpoint
	moved       []storage.Checkpoint                     // former places of names moved with force
}

// stored is one snapshot.
type stored struct {
	entry  storage.Entry
	rest   []byte // the members but messages, events and files, canonical
	blocks []storage.BlockID
	events []storage.ID
	files  []storage.FileID
}

var _ storage.Storage = (*Store)(nil)

// New makes an empty store.
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

// hashOf names bytes by content, as git does (with a kind, so that a
// message and a file of the same bytes differ only by what holds them).
func hashOf(kind string, parts ...[]byte) storage.ID {
	h := sha1.New()
	h.Write([]byte(kind))
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d\x00", len(p))
		h.Write(p)
	}
	return storage.ID(h.Sum(nil))
}

// put keeps canonical bytes and returns their id.
func (s *Store) put(kind string, data []byte) storage.ID {
	id := hashOf(kind, data)
	s.objects[id] = data
	return id
}

// parse reads canonical bytes back as a store gives values: numbers as
// snapshot.Number, as gitstore reads them.
func parse(data []byte) (any, error) {
	return snapshot.Parse(data, snapshot.Limits{})
}

// Close does nothing: a memory store holds no file.
func (s *Store) Close() error { return nil }
