package gitstore

import (
	"strings"
)

// CodePrefix turns a code revision into the commit id or id prefix that
// Filter.Code matches: a hex prefix of four or more digits stays as given,
// HEAD, a branch or a tag is read.
func (s *Store) CodePrefix(code string) (string, error) {
	if code == "" {
		return "", nil
	}
	if len(code) >= 4 && isHex(code) {
		return strings.ToLower(code), nil
	}
	id, err := s.CodeRef(code)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}
