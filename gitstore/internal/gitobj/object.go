// Package gitobj reads and writes the bytes of git's commit, tree and
// tag objects, apart from where objects are stored: the few fields
// git-snap uses, read and written as go-git's plumbing/object does
// (whose tests hold the two to the same results), without the OpenPGP,
// diff and image packages that one links and initialises at start-up.
package gitobj

import (
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// Object is an encoded git object not yet known to be stored.
type Object struct {
	Type plumbing.ObjectType
	Data []byte
	Hash storage.ID
}

// New names data as an object of type typ.
func New(typ plumbing.ObjectType, data []byte) Object {
	return Object{Type: typ, Data: data, Hash: storage.ID(plumbing.ComputeHash(typ, data))}
}

// Signature is the value of an author, committer or tagger header as
// go-git writes it: "Name <email> 1700000000 +0100", a time before 1970
// written as 0.
func Signature(name, email string, when time.Time) []byte {
	b := make([]byte, 0, len(name)+len(email)+32)
	b = append(b, name...)
	b = append(b, " <"...)
	b = append(b, email...)
	b = append(b, "> "...)
	b = strconv.AppendInt(b, max(when.Unix(), 0), 10)
	b = append(b, ' ')
	return when.AppendFormat(b, "-0700")
}

// zeroSignature is what go-git writes for a signature with no name,
// email or time.
var zeroSignature = Signature("", "", time.Time{})
