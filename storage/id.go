package storage

import "encoding/hex"

// ID identifies a snapshot, a checkpoint or a stored part of one by its
// content, the way git identifies objects: 20 bytes, written as 40 hex
// digits. The zero ID identifies nothing (such as the newest snapshot of
// a session that has none yet).
type ID [20]byte

// String returns the ID in hex, as git prints object ids.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// Short returns the first 12 hex digits, as the log prints ids.
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

// NewID parses an ID written as 40 hex digits, and returns the zero ID
// for anything else. Check untrusted text with IsID first.
func NewID(s string) ID {
	var id ID
	if len(s) == 2*len(id) {
		if _, err := hex.Decode(id[:], []byte(s)); err != nil {
			return ID{}
		}
	}
	return id
}
