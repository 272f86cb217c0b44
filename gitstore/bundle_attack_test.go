package gitstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestImportBundleClaimingTooManyObjects: a bundle whose pack claims
// 2^32-1 objects in 32 bytes is refused as a user error naming the
// claim, before any allocation for them, and leaves objects/pack as it
// was.
func TestImportBundleClaimingTooManyObjects(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "s", 1, 1)
	tip, err := s.SessionTip("s")
	must(t, err)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	before, _ := os.ReadDir(packDir)
	data := []byte("# v2 git bundle\n" + tip.String() + " refs/snap/s\n\nPACK\x00\x00\x00\x02")
	data = binary.BigEndian.AppendUint32(data, 0xffffffff)
	data = append(data, bytes.Repeat([]byte{0}, 20)...)
	_, err = s.ImportBundle(ctx, bytes.NewReader(data))
	var ue interface{ UserError() }
	if err == nil || !errors.As(err, &ue) || !bytes.Contains([]byte(err.Error()), []byte("claims 4294967295 objects")) {
		t.Fatalf("import: %v", err)
	}
	if after, _ := os.ReadDir(packDir); len(after) != len(before) {
		t.Errorf("objects/pack went from %d to %d files", len(before), len(after))
	}
}
