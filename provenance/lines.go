package provenance

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/git-snap/git-snap/snapshot"
)

// A line is known by a 64-bit hash of its text, without its newline (a
// carriage return is kept, as git blame prints it): what the index keeps
// of the lines a capture introduced, so that a blame reads no captured
// file. Two different lines of one file share a hash once in 2^64.
func lineHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// normHash hashes a line with its white space taken out: a line a
// person only re-spaced or re-indented (a formatter's work) keeps it.
// ok is false for a line of white space alone.
func normHash(s string) (h uint64, ok bool) {
	h = uint64(14695981039346656037)
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		ok = true
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
			h ^= uint64(b)
			h *= 1099511628211
		}
	}
	return h, ok
}

// distinctive reports whether a line says enough to be told apart from
// the same line written independently: "}", "end", "return nil" and a
// blank line are in every file, so a match on them proves nothing.
func distinctive(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n >= 10
}

// isBinary reports whether data is not text, as git decides it: a NUL in
// its first 8,000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// fileLines are a file's lines as hashes, in order: exact, with white
// space taken out (0 for a blank line), and whether each is
// distinctive. A nil exact is a binary file.
type fileLines struct {
	exact, norm []uint64
	distinct    []bool
}

// splitLines splits data into lines as git does (a last line without a
// newline is a line) and hashes them.
func splitLines(data []byte) fileLines {
	f := fileLines{exact: []uint64{}}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		n, _ := normHash(string(line))
		f.exact = append(f.exact, lineHash(string(line)))
		f.norm = append(f.norm, n)
		f.distinct = append(f.distinct, distinctive(string(line)))
	}
	return f
}

// lineContext is a line a capture introduced that proves nothing by
// itself (a closing brace, a blank line), with the lines around it: a
// blame tells which of several edits that introduced such a line wrote
// the one it has by the lines around that one.
type lineContext struct {
	Line, Prev, Next uint64 // hashes; 0 at the file's start or end
}

// introduce compares a file's lines with what they were (prev: the
// last capture of the file) as git diff does, and returns the hashes of
// the lines added, as sets (exact and with white space out), and the
// contexts of those that are not distinctive.
func introduce(prev, cur fileLines) capture {
	var c capture
	for j, added := range slideDown(snapshot.Added(prev.exact, cur.exact), cur.exact) {
		if !added {
			continue
		}
		c.Exact = append(c.Exact, cur.exact[j])
		if cur.norm[j] != 0 {
			c.Norm = append(c.Norm, cur.norm[j])
		}
		if !cur.distinct[j] {
			lc := lineContext{Line: cur.exact[j]}
			if j > 0 {
				lc.Prev = cur.exact[j-1]
			}
			if j+1 < len(cur.exact) {
				lc.Next = cur.exact[j+1]
			}
			c.Context = append(c.Context, lc)
		}
	}
	c.Exact, c.Norm = sortedSet(c.Exact), sortedSet(c.Norm)
	return c
}

// slideDown moves each run of added lines down while the line after it
// is the run's first line again, as git diff places a group: a function
// added after another is shown from the blank line after the other's
// closing brace to its own, not from the other's brace to the line
// before its own. Either script is as short; this one is what a person
// reads as the change.
func slideDown(added []bool, lines []uint64) []bool {
	for i := 0; i < len(added); {
		if !added[i] {
			i++
			continue
		}
		s := i
		for i < len(added) && added[i] {
			i++
		}
		for i < len(added) && !added[i] && lines[s] == lines[i] {
			added[s], added[i] = false, true
			s, i = s+1, i+1
			for i < len(added) && added[i] { // the run reached the next: one run
				i++
			}
		}
	}
	return added
}

// sortedSet sorts hashes and drops repeats.
func sortedSet(hs []uint64) []uint64 {
	slices.Sort(hs)
	return slices.Compact(hs)
}
