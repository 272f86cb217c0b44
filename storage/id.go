package storage

import "encoding/hex"

// ID names a snapshot, a checkpoint or a stored piece of one by its
// content, as git names objects: 20 bytes, written as 40 hex digits.
// The zero ID names nothing (a session with no snapshot yet).
type ID [20]byte

// String is the ID in hex, as git prints object ids.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id names nothing.
func (id ID) IsZero() bool { return id == ID{} }

// Short is the first 12 hex digits, as the log prints ids.
func (id ID) Short() string { return id.String()[:12] }

// IsID reports whether s is an ID written as 40 hex digits.
func IsID(s string) bool {
	var id ID
	if len(s) != 2*len(id) {
		return false
	}
	_, err := hex.Decode(id[:], []byte(s))
	return err == nil
}

// NewID reads an ID written as 40 hex digits, and gives the zero ID for
// anything else: check text from outside with IsID first.
func NewID(s string) ID {
	var id ID
	if len(s) == 2*len(id) {
		if _, err := hex.Decode(id[:], []byte(s)); err != nil {
			return ID{}
		}
	}
	return id
}
