package search

import (
	"compress/flate"
	"hash/crc32"
	"sync"

	"github.com/git-snap/git-snap/storage"
)

// A segment is one immutable index file. It holds the messages one
// update read, their text, and a trigram table over that text. Layout
// (little-endian):
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
// Postings list blocks of docs, not single docs. Neighbouring messages
// share most trigrams, so a list of blocks is several times shorter, and
// a search reads the few docs of each block it finds. The text is
// deflated block by block, so that a search inflates only the blocks it
// reads.
//
// Checksums are written once, with the segment, and verified as parts
// are read, never a whole table at open. A block's text and a trigram's
// postings have their own checksums; the tables are verified one page
// (pageBytes) at a time, the first time a page is read. Every offset is
// checked against its section. So damage is detected in whatever part a
// search reads, and damaged data is never trusted.

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

// textChunk is the size of the chunks that hold a segment's text while
// it is being written.
const textChunk = 1 << 20

// blockDocs is the number of neighbouring docs that one posting refers
// to and that one deflated block holds.
const blockDocs = 16

// deflateLevel trades build time against text size. On the benchmark's
// text, level 1 compressed to 0.54 of the original size, and levels 2 to
// 6 to between 0.50 and 0.52, each several times slower to write.
const deflateLevel = flate.BestSpeed

// castagnoli is the checksum table. It is built on first use so that
// commands do not pay for it at start-up.
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
	secTrigrams // the last of the paged tables
	secPages
)

// Posting list encodings, stored in the list's first byte.
const (
	postDeltas byte = iota // uvarint deltas from the previous block (the first from 0)
	postBitmap             // a bit per block of the segment
)

// snapRow is a snapshot as recorded in a segment.
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

// runRow is the docs first to first+n-1, which all belong to one session
// row.
type runRow struct {
	session, first, n uint32
}
