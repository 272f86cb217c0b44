package pack

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/git-snap/git-snap/storage"
)

// Receive stores a pack read from r (a bundle's) in dir, a repository's
// objects/pack, indexed as git index-pack indexes one: every entry
// parsed, its deltas resolved and its checksum checked, every object's
// id, offset and CRC-32 in a version 2 index. A pack whose deltas name
// objects it does not hold (a thin pack) is refused, as go-git's storage
// refused it. It returns the pack's name (pack-<checksum>), "" for a
// pack of no object, which is not kept. The temporary files' names
// start with temp; on any error none is left.
func Receive(dir, temp string, r io.Reader) (name string, err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, temp)
	if err != nil {
		return "", err
	}
	var idxTmp string
	defer func() {
		if err != nil || name == "" {
			f.Close()
			os.Remove(f.Name())
			if idxTmp != "" {
				os.Remove(idxTmp)
			}
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	size, err := io.Copy(bw, r)
	if err != nil {
		return "", fmt.Errorf("read the pack: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("write the pack: %w", err)
	}
	if err := checkCount(f, size); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	iw := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(f), iw)
	if err != nil {
		return "", fmt.Errorf("read the pack: %w", err)
	}
	sum, err := p.Parse()
	if err != nil {
		return "", fmt.Errorf("read the pack: %w", err)
	}
	idx, err := iw.Index()
	if err != nil {
		return "", fmt.Errorf("index the pack: %w", err)
	}
	if n, err := idx.Count(); err != nil || n == 0 {
		return "", err
	}
	if err := syncClose(f); err != nil {
		return "", fmt.Errorf("write the pack: %w", err)
	}
	if idxTmp, err = writeIndexFile(dir, temp, iw); err != nil {
		return "", fmt.Errorf("write the pack's index: %w", err)
	}
	return install(dir, storage.ID(sum), f.Name(), idxTmp)
}

// minEntryBytes is the least an object takes in a pack: a byte of
// header and a zlib stream, itself at least eight bytes.
const minEntryBytes = 9

// checkCount refuses a pack whose header claims more objects than its
// size can hold, before go-git's parser allocates room for each one it
// claims (2^32 claimed were 137 GB asked for).
func checkCount(f *os.File, size int64) error {
	var h [12]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("read the pack: not a pack (%d bytes)", size)
	}
	n := int64(binary.BigEndian.Uint32(h[8:]))
	if n > (size-12-20)/minEntryBytes && n > 0 {
		return fmt.Errorf("read the pack: its header claims %d objects, more than its %d bytes can hold", n, size)
	}
	return nil
}
