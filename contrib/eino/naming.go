package eino

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// SessionPrefix starts the names DefaultSession gives, so that Eino's
// checkpoints stand apart from other sessions in the repository.
const SessionPrefix = "eino-"

// maxSession is the longest session name git-snap accepts.
const maxSession = 200

// DefaultSession names the session of a checkpoint id: SessionPrefix and
// the id when that is a valid session name ("eino-run-1"). Other ids
// (with '/', spaces, "..", too long, …) are encoded: their characters
// outside [A-Za-z0-9_-] become '_', and a hash of the whole id is
// appended so that ids differing only in those characters, or past the
// cut, still get sessions of their own ("eino-user_42_thread_7-3f2a…").
//
// An id kept as it is never ends as an encoded one does ("-" and twelve
// hex digits): such an id is encoded too, so that "user_42-ff9367307eb0"
// and "user/42", which encodes to that, do not share a session.
func DefaultSession(checkPointID string) string {
	name := SessionPrefix + checkPointID
	if snapshot.CheckName("session", name) == nil && !looksEncoded(checkPointID) {
		return name
	}
	sum := sha256.Sum256([]byte(checkPointID))
	suffix := "-" + hex.EncodeToString(sum[:6])
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_' // '.' too: no "..", no trailing '.', no ".lock"
	}, checkPointID)
	if room := maxSession - len(SessionPrefix) - len(suffix); len(safe) > room {
		safe = safe[:room] // ASCII only by now: bytes are characters
	}
	return SessionPrefix + safe + suffix
}

// looksEncoded reports whether id ends as DefaultSession's encoded names
// do: "-" and twelve lower-case hex digits.
func looksEncoded(id string) bool {
	if len(id) < 13 || id[len(id)-13] != '-' {
		return false
	}
	for _, c := range id[len(id)-12:] {
		if isDigit, isHexLetter := c >= '0' && c <= '9', c >= 'a' && c <= 'f'; !isDigit && !isHexLetter {
			return false
		}
	}
	return true
}
