package provenance

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"
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

// lineCounts counts a file's lines by their hashes, exact and with
// white space taken out.
type lineCounts struct {
	exact, norm map[uint64]int32
}

// countLines splits data into lines as git does (a last line without a
// newline is a line) and counts them.
func countLines(data []byte) lineCounts {
	c := lineCounts{exact: map[uint64]int32{}, norm: map[uint64]int32{}}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		c.exact[lineHash(string(line))]++
		if h, ok := normHash(string(line)); ok {
			c.norm[h]++
		}
	}
	return c
}

// introduced lists, sorted, the hashes cur holds more often than prev:
// the lines a capture added to the file, as a set. Counting, rather than
// diffing by position, is what survives a file rewritten whole (a Write
// of the same file with one line changed introduces that line alone).
func introduced(prev, cur map[uint64]int32) []uint64 {
	var out []uint64
	for h, n := range cur {
		if n > prev[h] {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// has reports whether the sorted hashes hold h.
func has(sorted []uint64, h uint64) bool {
	_, ok := slices.BinarySearch(sorted, h)
	return ok
}
