//go:build unix

// Package mmapfile maps files into memory for reading: pack indexes,
// read in part and shared between processes.
package mmapfile

import (
	"syscall"

	"github.com/git-snap/git-snap/internal/safefile"
)

// Map maps a file read-only; unmap releases it. An empty file maps to
// no bytes; one that is not a regular file (a FIFO, whose open would
// wait for a writer, or a device) is refused with safefile.ErrRefused.
func Map(path string) (data []byte, unmap func(), err error) {
	f, err := safefile.OpenIn(path, "/") // links are followed: packs may be linked
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 || !fi.Mode().IsRegular() {
		return nil, func() {}, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil // Munmap fails only for a range never mapped
}
