package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// Tag is what git-snap needs of an annotated tag: what it points at,
// its name, tagger and message.
type Tag struct {
	Target     storage.ID
	TargetType plumbing.ObjectType
	Name       string
	// Tagger is the tagger header's value as written, nil when
	// missing: a slice of the parsed bytes.
	Tagger  []byte
	When    time.Time // the tagger's, in the tagger's zone
	Message string    // without a signature that ends it
}

// ErrMalformedTag is a tag object whose object, type or tag header is
// missing or out of place.
var ErrMalformedTag = errors.New("malformed tag")

// ParseTag reads a tag object's bytes as go-git's Tag.Decode reads them:
// object, type and tag first and in that order, then a tagger where git
// writes it (other headers are passed over), then after the first empty
// line the message, a signature at its end cut off.
func ParseTag(data []byte) (Tag, error) {
	var t Tag
	rest := data
	for _, want := range []string{"object", "type", "tag"} {
		line, next, more := nextLine(rest)
		key, value := splitHeader(line)
		if len(line) == 0 || isBlank(line) || key != want {
			return t, fmt.Errorf("%w: %s header missing or out of place", ErrMalformedTag, want)
		}
		if err := t.set(key, value); err != nil {
			return t, err
		}
		if !more {
			return t, nil
		}
		rest = next
	}
	for first := true; ; first = false {
		line, next, more := nextLine(rest)
		switch {
		case len(line) == 0:
			return t, nil
		case isBlank(line):
			t.Message = string(cutSignature(next))
			return t, nil
		}
		if key, value := splitHeader(line); first && key == "tagger" {
			t.Tagger, t.When = value, SignatureTime(value)
		}
		if !more {
			return t, nil
		}
		rest = next
	}
}

// set reads one of the three headers a tag starts with.
func (t *Tag) set(key string, value []byte) error {
	switch key {
	case "object":
		if !storage.IsID(string(value)) {
			return fmt.Errorf("%w: bad object hash", ErrMalformedTag)
		}
		t.Target = storage.NewID(string(value))
	case "type":
		typ, err := plumbing.ParseObjectType(string(value))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformedTag, err)
		}
		t.TargetType = typ
	case "tag":
		t.Name = string(value)
	}
	return nil
}

// signatureStarts are the lines an inline signature at the end of a
// tag's message begins with: OpenPGP, X.509 and SSH.
var signatureStarts = [][]byte{
	[]byte("-----BEGIN PGP SIGNATURE-----"),
	[]byte("-----BEGIN PGP MESSAGE-----"),
	[]byte("-----BEGIN CERTIFICATE-----"),
	[]byte("-----BEGIN SIGNED MESSAGE-----"),
	[]byte("-----BEGIN SSH SIGNATURE-----"),
}

// cutSignature is msg up to the last line that starts a signature, all
// of it when none does.
func cutSignature(msg []byte) []byte {
	cut := len(msg)
	for n := 0; n < len(msg); {
		for _, s := range signatureStarts {
			if bytes.HasPrefix(msg[n:], s) {
				cut = n
			}
		}
		eol := bytes.IndexByte(msg[n:], '\n')
		if eol < 0 {
			break
		}
		n += eol + 1
	}
	return msg[:cut]
}

// NewTag encodes an annotated tag of a commit as go-git's Tag.Encode
// does: tagger is a header value (Signature's, or a parsed Tag's kept as
// it was), left out when nil.
func NewTag(name string, target storage.ID, tagger []byte, message string) Object {
	b := make([]byte, 0, 128+len(name)+len(tagger)+len(message))
	b = append(b, "object "...)
	b = append(b, target.String()...)
	b = append(b, "\ntype commit\ntag "...)
	b = append(b, name...)
	b = append(b, '\n')
	if tagger != nil {
		b = append(b, "tagger "...)
		b = append(b, tagger...)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	b = append(b, message...)
	return New(plumbing.TagObject, b)
}
