package pack

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"testing"
)

// withChecksum is a pack's bytes followed by their SHA-1, as a pack ends.
func withChecksum(b []byte) []byte {
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// claimedHeader is a version 2 pack header claiming n objects.
func claimedHeader(n uint32) []byte {
	h := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00")
	binary.BigEndian.PutUint32(h[8:], n)
	return h
}

// TestReceiveHostileHeaders: a pack claiming 2^32-1 objects and holding
// none, one object whose header declares 2^62 bytes, one delta whose base
// offset points before the pack, and a version 3 pack are refused
// without reading or allocating what they claim, leaving nothing.
func TestReceiveHostileHeaders(t *testing.T) {
	// An object header: type blob (3), size in 7-bit groups after 4 bits.
	huge := []byte{0x80 | 3<<4 | 0xf}
	for i := 0; i < 8; i++ {
		huge = append(huge, 0xff)
	}
	huge = append(huge, 0x7f)
	// An ofs-delta (type 6) of size 1 whose base is 1000 bytes back.
	ofs := []byte{6<<4 | 1, 0x87, 0x68, 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"2^32-1 objects", withChecksum(claimedHeader(0xffffffff))},
		{"2^32-1 objects then junk", withChecksum(append(claimedHeader(0xffffffff), bytes.Repeat([]byte{0x30}, 4096)...))},
		{"huge declared size", withChecksum(append(claimedHeader(1), append(huge, 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01)...))},
		{"delta out of range", withChecksum(append(claimedHeader(1), ofs...))},
		{"version 3", withChecksum([]byte("PACK\x00\x00\x00\x03\x00\x00\x00\x01"))},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name, err := Receive(dir, "tmp_pack_", bytes.NewReader(tc.data))
			if err == nil || name != "" {
				t.Fatalf("Receive gave %q, %v", name, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left %d files", len(left))
			}
		})
	}
}
