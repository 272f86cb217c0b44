package search

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// refTrigrams computes the reference result independently of the
// index's code: the set of trigrams of the texts, as strings, after
// upper-casing with strings.ToUpper (the index uses its own fold).
func refTrigrams(texts []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range texts {
		u := strings.ToUpper(t)
		for i := 0; i+3 <= len(u); i++ {
			out[u[i:i+3]] = true
		}
	}
	return out
}

// A segment written and read back returns each doc as it was added, and
// for each trigram exactly the blocks whose docs contain it. The test
// covers common trigrams (stored as bitmaps), rare ones (stored as
// deltas), a block in the middle of a run of empty blocks, and a last
// block that is not full.
func TestSegmentRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "and", "of", "panic", "nil", "goroutine", "zebra", "quartz", "x"}
	w := newSegWriter(1 << 30)
	type doc struct {
		session string
		message int
		text    []string
	}
	var docs []doc
	var snaps []uint32
	for s := range 3 {
		sess := w.session(fmt.Sprintf("s%d", s), uint32(s+1))
		snaps = append(snaps, w.snapshot(sess, storage.NewID(fmt.Sprintf("%040x", s)), s, time.Unix(int64(s), 0), "label"))
	}
	n := 16*40 + 5
	for i := range n {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			// Rare words in only a few docs, common words everywhere.
			wd := words[rng.IntN(3)]
			if i%97 == 0 {
				wd = words[3+rng.IntN(len(words)-3)]
			}
			b.WriteString(wd + " ")
		}
		d := doc{session: fmt.Sprintf("s%d", i*3/n), message: i, text: []string{b.String(), fmt.Sprintf("doc-%05d", i)}}
		docs = append(docs, d)
		w.add(snaps[i*3/n], i, "user", time.Time{}, []field{{kind: kindText, text: d.text[0]}, {kind: kindToolResult, tool: "Bash", text: d.text[1]}})
	}
	var buf bytes.Buffer
	if err := w.write(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := parseSegment("seg", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if s.nDocs != n || s.nBlocks() != (n+15)/16 {
		t.Fatalf("%d docs in %d blocks", s.nDocs, s.nBlocks())
	}
	for i, d := range docs {
		row, err := s.doc(uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := s.fields(row)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := s.snap(row.snap)
		if err != nil {
			t.Fatal(err)
		}
		name, _, err := s.session(snap.session)
		if err != nil {
			t.Fatal(err)
		}
		if name != d.session || int(row.message) != d.message || len(fs) != 2 || fs[0].text != d.text[0] || fs[1].text != d.text[1] || fs[1].tool != "Bash" {
			t.Fatalf("doc %d read back as %s %d %+v", i, name, row.message, fs)
		}
	}
	// Runs: one per session, covering the docs in order.
	var next uint32
	for i := range s.nRuns() {
		r, err := s.run(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.first != next {
			t.Fatalf("run %d starts at %d, want %d", i, r.first, next)
		}
		next += r.n
	}
	if s.nRuns() != 3 || int(next) != n {
		t.Fatalf("%d runs over %d docs", s.nRuns(), next)
	}
	// Postings against the reference, for every trigram of every doc.
	blockTris := make([]map[string]bool, s.nBlocks())
	all := map[string]bool{}
	for b := range blockTris {
		var texts []string
		for _, d := range docs[b*16 : min(len(docs), (b+1)*16)] {
			texts = append(texts, d.text...)
		}
		blockTris[b] = refTrigrams(texts)
		for k := range blockTris[b] {
			all[k] = true
		}
	}
	encodings := map[byte]int{}
	for tri := range all {
		set, err := s.eval(literal(tri))
		if err != nil {
			t.Fatal(err)
		}
		for b := range blockTris {
			if got := set[b/64]&(1<<(b%64)) != 0; got != blockTris[b][tri] {
				t.Fatalf("trigram %q, block %d: in the postings %v, in the text %v", tri, b, got, blockTris[b][tri])
			}
		}
		encodings[postingKind(t, s, tri)]++
	}
	if encodings[postBitmap] == 0 || encodings[postDeltas] == 0 {
		t.Fatalf("encodings used: %v; the test needs both", encodings)
	}
}

// postingKind returns the encoding of a trigram's posting list, read
// from the table.
func postingKind(t *testing.T, s *segment, tri string) byte {
	want := uint32(tri[0])<<16 | uint32(tri[1])<<8 | uint32(tri[2])
	for i := range s.nTrigrams() {
		e, err := s.table(secTrigrams, i*triBytes, triBytes)
		if err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint32(e) == want {
			b := make([]byte, 1)
			if err := s.readAt(b, s.sec[secPostings][0]+int(binary.LittleEndian.Uint64(e[4:]))); err != nil {
				t.Fatal(err)
			}
			return b[0]
		}
	}
	t.Fatalf("trigram %q not in the table", tri)
	return 0
}

// Every byte of a segment is covered by a checksum, which is verified
// when the data is read. A byte changed anywhere makes the reads that
// cover it fail as damage, never return a different answer.
func TestSegmentDamageIsFound(t *testing.T) {
	w := newSegWriter(1 << 30)
	snap := w.snapshot(w.session("s", 1), storage.ID{}, 1, time.Unix(1, 0), "l")
	for i := range 40 {
		w.add(snap, i, "user", time.Time{}, []field{{kind: kindText, text: fmt.Sprintf("message %d about the parser", i)}})
	}
	var buf bytes.Buffer
	if err := w.write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	readAll := func(data []byte) error {
		s, err := parseSegment("seg", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return err
		}
		for d := range uint32(s.nDocs) {
			row, err := s.doc(d)
			if err != nil {
				return err
			}
			if _, err := s.fields(row); err != nil {
				return err
			}
			if _, err := s.str(row.role); err != nil {
				return err
			}
			snap, err := s.snap(row.snap)
			if err != nil {
				return err
			}
			if _, _, err := s.session(snap.session); err != nil {
				return err
			}
		}
		for i := range s.nRuns() {
			if _, err := s.run(i); err != nil {
				return err
			}
		}
		for i := range s.nTrigrams() {
			e, err := s.table(secTrigrams, i*triBytes, triBytes)
			if err != nil {
				return err
			}
			if err := s.postings(binary.LittleEndian.Uint32(e), make([]uint64, (s.nBlocks()+63)/64)); err != nil {
				return err
			}
		}
		// Read every page, to cover what none of the reads above need
		// (such as a string no doc refers to).
		for sec := secStrings; sec <= secTrigrams; sec++ {
			if _, err := s.table(sec, 0, s.sec[sec][1]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := readAll(good); err != nil {
		t.Fatal(err)
	}
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x10
		if err := readAll(bad); !errors.Is(err, errCorrupt) {
			t.Fatalf("byte %d of %d changed: %v", i, len(good), err)
		}
	}
}

// An index from an earlier version is not read but rebuilt, and its
// files are removed.
func TestOldIndexIsRebuilt(t *testing.T) {
	_, s := newRepo(t)
	x := open(t, s)
	want := find(t, x, Query{Pattern: "README"})
	if err := os.MkdirAll(x.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	old := "seg-0123456789abcdef01234567"
	write(t, filepath.Join(x.dir, old), []byte("gsnapix1 an old segment gsnapix1"))
	m, err := readManifest(x.dir)
	if err != nil {
		t.Fatal(err)
	}
	m.segments = []string{old}
	var b bytes.Buffer
	if err := m.encode(&b); err != nil {
		t.Fatal(err)
	}
	// The same manifest under version 2's header, with a valid checksum.
	v2 := strings.Replace(b.String(), manifestHeader, "git-snap search index 2", 1)
	body := v2[:strings.LastIndex(v2, "end ")]
	v2 = fmt.Sprintf("%send %x\n", body, sha1.Sum([]byte(body)))
	if _, ok := parseManifest([]byte(strings.Replace(v2, "git-snap search index 2", manifestHeader, 1))); ok {
		t.Fatal("the checksum does not cover the header: the test would not test the version")
	}
	write(t, filepath.Join(x.dir, "manifest"), []byte(v2))
	got := find(t, x, Query{Pattern: "README"})
	if len(got) != len(want) {
		t.Fatalf("%d hits after the old index, want %d", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(x.dir, old)); !os.IsNotExist(err) {
		t.Fatalf("the old segment is still there: %v", err)
	}
}

// A block table with valid checksums but an inflated length that does
// not match what the block inflates to (a writer's bug, or a forged
// file) is damage. The text is never inflated beyond the recorded
// length.
func TestBlockLengthIsChecked(t *testing.T) {
	w := newSegWriter(1 << 30)
	snap := w.snapshot(w.session("s", 1), storage.ID{}, 1, time.Unix(1, 0), "l")
	for i := range 20 {
		w.add(snap, i, "user", time.Time{}, []field{{kind: kindText, text: strings.Repeat("the same words again ", 50+i)}})
	}
	var buf bytes.Buffer
	if err := w.write(&buf); err != nil {
		t.Fatal(err)
	}
	for _, delta := range []int{-1, +1} {
		data := slices.Clone(buf.Bytes())
		s, err := parseSegment("seg", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		// Change block 0's inflated length, and every checksum covering it.
		le := binary.LittleEndian
		tab := s.sec[secBlocks][0]
		le.PutUint32(data[tab+16:], uint32(int(le.Uint32(data[tab+16:]))+delta))
		sums := s.sec[secPages][0] + 4*s.page[secBlocks]
		le.PutUint32(data[sums:], checksum(data[tab:tab+min(pageBytes, s.sec[secBlocks][1])]))
		foot := len(data) - footerBytes
		le.PutUint32(data[foot+nSections*16+4:], checksum(data[s.sec[secPages][0]:s.sec[secPages][0]+s.sec[secPages][1]]))
		le.PutUint32(data[foot+nSections*16+8:], checksum(data[foot:foot+nSections*16+8]))
		s, err = parseSegment("seg", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("length %+d: the checksums were not fixed up correctly: %v", delta, err)
		}
		if _, err := s.doc(0); !errors.Is(err, errCorrupt) {
			t.Fatalf("length %+d: reading the block: %v", delta, err)
		}
		if _, err := s.doc(uint32(blockDocs)); err != nil {
			t.Fatalf("length %+d: the next block: %v", delta, err)
		}
	}
}
