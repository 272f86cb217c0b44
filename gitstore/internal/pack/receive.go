package pack

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
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
	if _, err := io.Copy(bw, r); err != nil {
		return "", fmt.Errorf("read the pack: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("write the pack: %w", err)
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
	return install(dir, sum, f.Name(), idxTmp)
}
