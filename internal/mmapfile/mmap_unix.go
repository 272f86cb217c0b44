//go:build unix

// Package mmapfile maps files into memory for reading. It is used for
// pack indexes, which are read only in part and can be shared between
// processes.
package mmapfile

import (
	"syscall"

	"github.com/git-snap/git-snap/internal/safefile"
)

// Map maps the file at path read-only. Calling unmap releases the
// mapping. An empty file maps to no bytes. A file that is not a regular
// file (a FIFO, whose open would wait for a writer, or a device) is
// refused with safefile.ErrRefused.
func Map(path string) (data []byte, unmap func(), err error) {
	f, err := safefile.OpenIn(path, "/") // follow links: pack files may be symbolic links
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
	return data, func() { _ = syscall.Munmap(data) }, nil // Munmap fails only for a range that was never mapped
}
