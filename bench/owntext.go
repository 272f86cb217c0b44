//go:build unix

package main

import (
	"bytes"
	"math/rand/v2"
	"regexp"
)

// ownText rewrites a transcript as another session's: every string
// value that holds text (a space or an escape: messages, tool inputs and
// results, thinking) has its letters put through a permutation of the
// alphabet of the session's own, and its ids (UUIDs, msg_…, toolu_…)
// through a permutation of their characters. Keys, numbers, times, and
// short words without a space (record types, tool and model names,
// paths of the project) stay as they are, as sessions of one project
// share them. A permutation keeps each session's repeats where they are,
// so gzip compresses it as it does the real one, while no two sessions
// share their text: git cannot store one session as a delta of another
// as it can a copy.
func ownText(lines [][]byte, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var letters, hex [256]byte
	for i := range letters {
		letters[i], hex[i] = byte(i), byte(i)
	}
	lower := r.Perm(26)
	for i, j := range lower {
		letters['a'+i], letters['A'+i] = byte('a'+j), byte('A'+j)
	}
	const hexDigits = "0123456789abcdef"
	for i, j := range r.Perm(16) {
		hex[hexDigits[i]] = hexDigits[j]
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = rewriteStrings(l, &letters, &hex)
	}
	return out
}

var (
	uuidLike = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	idLike   = regexp.MustCompile(`^[a-z]+_[0-9A-Za-z]{10,}$`)
)

// rewriteStrings rewrites the string values of one JSON line (not its
// keys), leaving its escapes and everything outside strings byte for
// byte.
func rewriteStrings(line []byte, letters, hex *[256]byte) []byte {
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			out = append(out, line[i])
			continue
		}
		end := i + 1
		for end < len(line) && line[end] != '"' {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		s := line[i+1 : min(end, len(line))]
		rest := bytes.TrimLeft(line[min(end+1, len(line)):], " \t")
		out = append(out, '"')
		switch {
		case len(rest) > 0 && rest[0] == ':': // a key
			out = append(out, s...)
		case uuidLike.Match(s):
			out = mapBytes(out, s, hex)
		case idLike.Match(s):
			at := bytes.IndexByte(s, '_') + 1
			out = mapText(append(out, s[:at]...), s[at:], letters)
		case bytes.ContainsAny(s, " \\"):
			out = mapText(out, s, letters)
		default:
			out = append(out, s...)
		}
		if end < len(line) {
			out = append(out, '"')
		}
		i = end
	}
	return out
}

func mapBytes(out, s []byte, table *[256]byte) []byte {
	for _, c := range s {
		out = append(out, table[c])
	}
	return out
}

// mapText maps the letters of a raw JSON string, not those of its
// escapes (\n, \u00e9).
func mapText(out, s []byte, letters *[256]byte) []byte {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u':
			n := min(i+6, len(s))
			out = append(out, s[i:n]...)
			i = n - 1
		case s[i] == '\\' && i+1 < len(s):
			out = append(out, s[i], s[i+1])
			i++
		default:
			out = append(out, letters[s[i]])
		}
	}
	return out
}
