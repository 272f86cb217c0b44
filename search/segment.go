package search

import (
	"compress/flate"
	"hash/crc32"
	"sync"

	"github.com/git-snap/git-snap/storage"
)

// A segment is one immutable index file: the messages one update read,
// their text, and a trigram table over it. Layout (little-endian):
//
//	magic "gsnapix2"
//	text      per block of blockDocs docs, deflated: per doc {snap, message, role, time, fields}
//	postings  per trigram: the blocks that hold it, as deltas or a bitmap
//	strings   n, n+1 offsets, bytes          (session names, roles, labels, tools)
//	sessions  n × {name, gen}                 (gen: see manifest)
//	snapshots n × {commit[20], session, seq, time int64, label}
//	runs      n × {session, first doc, docs}  (a session's docs, in doc order)
//	blocks    n × {textOff u64, textLen, crc, inflated length}
//	trigrams  n × {trigram, postOff u64, postLen, crc}, sorted
//	pages     the crc of each pageBytes of the tables (strings to trigrams)
//	footer    nSections × {off u64, len u64}, docs, crc of pages, crc of footer, magic
//
// Postings name blocks of docs, not docs: neighbouring messages share
// most trigrams, so a block list is several times shorter, and a search
// reads the few docs of each block it finds. The text is deflated block
// by block, so that a search inflates only the blocks it reads.
//
// Checksums are written once, with the segment, and checked as parts are
// read, never a whole table at open: a block's text and a trigram's
// postings by their own checksums, the tables a page (pageBytes) at a
// time, the first time a page is read. Every offset is checked against
// its section. A damaged file is found in what a search reads, never
// trusted.

const (
	segMagic    = "gsnapix2"
	nSections   = 9
	footerBytes = nSections*16 + 4 + 4 + 4 + len(segMagic)
	snapBytes   = 40
	sessBytes   = 8
	runBytes    = 12
	blockBytes  = 20
	triBytes    = 20
	pageBytes   = 4096
)

// textChunk is the size of the pieces a segment's text is kept in while
// written.
const textChunk = 1 << 20

// blockDocs is how many neighbouring docs one posting stands for, and
// one deflated block holds.
const blockDocs = 16

// deflateLevel trades the build's time for the text's size: on the
// benchmark's text, level 1 gave 0.54 of the text and 2 to 6 gave 0.50 to
// 0.52, each several times slower to write.
const deflateLevel = flate.BestSpeed

// castagnoli is the checksum table, made when first needed so that no
// command pays for it at start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

type section int

const (
	secText section = iota
	secPostings
	secStrings // the first of the paged tables
	secSessions
	secSnapshots
	secRuns
	secBlocks
	secTrigrams // the last of them
	secPages
)

// Posting list encodings, the list's first byte.
const (
	postDeltas byte = iota // uvarint deltas from the block before (the first from 0)
	postBitmap             // a bit per block of the segment
)

// snapRow is a snapshot as a segment records it.
type snapRow struct {
	commit  storage.ID
	session uint32
	seq     uint32
	time    int64
	label   uint32
}

// docRow is one indexed message, as read from its block.
type docRow struct {
	snap    uint32
	message int32
	role    uint32
	time    int64
	fields  []byte // encoded: see segWriter.add
}

// runRow is docs first to first+n-1, all of one session row.
type runRow struct {
	session, first, n uint32
}
