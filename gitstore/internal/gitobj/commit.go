package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// Commit is what git-snap needs of a commit object: its tree, parents,
// author and committer, and message.
type Commit struct {
	Tree    storage.ID
	Parents []storage.ID
	// Author and Committer are their headers' values as written
	// ("Name <email> 1700000000 +0100"), nil when missing: slices of
	// the parsed bytes, so that reading a long history copies none.
	Author, Committer []byte
	When              time.Time // the committer's, in the committer's zone
	Message           string
}

// ErrMalformedCommit is a commit object without its tree header, or
// with a tree or parent id that is not one.
var ErrMalformedCommit = errors.New("malformed commit")

// ParseCommit reads a commit object's bytes as go-git's Commit.Decode
// reads them (the fields above), without its buffered line reader, the
// copy into a MemoryObject and the SHA-1 of the content it computes to
// name the commit: a log or a session list reads thousands. Headers are
// taken where git takes them: tree first, then a contiguous run of
// parents, then author and committer at their places (one elsewhere is
// dropped); the message is what follows the first empty line.
func ParseCommit(data []byte) (Commit, error) {
	var c Commit
	line, rest, more := nextLine(data)
	key, value := splitHeader(line)
	if len(line) == 0 || isBlank(line) || key != "tree" {
		return c, fmt.Errorf("%w: tree header must be first", ErrMalformedCommit)
	}
	var err error
	if c.Tree, err = parseID(value, "tree"); err != nil || !more {
		return c, err
	}
	for more {
		line, rest, more = nextLine(rest)
		if key, value = splitHeader(line); key != "parent" {
			break
		}
		id, err := parseID(value, "parent")
		if err != nil {
			return c, err
		}
		c.Parents = append(c.Parents, id)
		if !more {
			return c, nil
		}
	}
	// line is the first after the parents; an author there is passed
	// over, and the line after it may be the committer.
	for _, want := range []string{"author", "committer"} {
		if len(line) == 0 || isBlank(line) {
			break
		}
		if key, value = splitHeader(line); key != want {
			continue
		}
		if want == "committer" {
			c.Committer, c.When = value, SignatureTime(value)
		} else {
			c.Author = value
		}
		if !more {
			return c, nil
		}
		line, rest, more = nextLine(rest)
	}
	for !isBlank(line) {
		if len(line) == 0 || !more {
			return c, nil // headers to the end: no message
		}
		line, rest, more = nextLine(rest)
	}
	c.Message = string(rest)
	return c, nil
}

// nextLine cuts the first line off b, its newline kept (as
// bufio.Reader.ReadBytes gives it); more is false when b held no newline,
// which ends the object.
func nextLine(b []byte) (line, rest []byte, more bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i+1], b[i+1:], true
}

// isBlank is the empty line between headers and message.
func isBlank(line []byte) bool { return len(line) == 1 && line[0] == '\n' }

// splitHeader splits a header line at its first space, its newline
// dropped.
func splitHeader(line []byte) (string, []byte) {
	line = bytes.TrimRight(line, "\n")
	key, value, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return string(line), nil
	}
	return string(key), value
}

func parseID(value []byte, header string) (storage.ID, error) {
	if !storage.IsID(string(value)) {
		return storage.ID{}, fmt.Errorf("%w: bad %s hash", ErrMalformedCommit, header)
	}
	return storage.NewID(string(value)), nil
}

// SignatureTime reads the time of "Name <email> 1700000000 +0100" as
// go-git's Signature.Decode does: the zero time when there is no
// readable Unix time after the last '>', UTC when the zone is missing
// or unreadable.
func SignatureTime(b []byte) time.Time {
	open, end := bytes.LastIndexByte(b, '<'), bytes.LastIndexByte(b, '>')
	if open < 0 || end < 0 || end < open || end+2 >= len(b) {
		return time.Time{}
	}
	b = b[end+2:]
	space := bytes.IndexByte(b, ' ')
	if space < 0 {
		space = len(b)
	}
	ts, err := strconv.ParseInt(string(b[:space]), 10, 64)
	if err != nil {
		return time.Time{}
	}
	when := time.Unix(ts, 0).In(time.UTC)
	const zoneLen = 5 // +hhmm
	if space+1+zoneLen > len(b) {
		return when
	}
	zone := string(b[space+1 : space+1+zoneLen])
	hours, err1 := strconv.ParseInt(zone[:3], 10, 64)
	mins, err2 := strconv.ParseInt(zone[3:], 10, 64)
	if err1 != nil || err2 != nil {
		return when
	}
	if hours < 0 {
		mins = -mins
	}
	return when.In(time.FixedZone("", int(hours*3600+mins*60)))
}

// NewCommit encodes a commit as go-git's Commit.Encode does one with
// these fields alone. author and committer are header values
// (Signature's, or a parsed Commit's kept as they were); nil writes an
// empty signature.
func NewCommit(tree storage.ID, parents []storage.ID, author, committer []byte, message string) Object {
	b := make([]byte, 0, 256+len(message))
	b = append(b, "tree "...)
	b = append(b, tree.String()...)
	for _, p := range parents {
		b = append(b, "\nparent "...)
		b = append(b, p.String()...)
	}
	b = append(b, "\nauthor "...)
	b = append(b, orZero(author)...)
	b = append(b, "\ncommitter "...)
	b = append(b, orZero(committer)...)
	b = append(b, "\n\n"...)
	b = append(b, message...)
	return New(plumbing.CommitObject, b)
}

func orZero(sig []byte) []byte {
	if sig == nil {
		return zeroSignature
	}
	return sig
}
