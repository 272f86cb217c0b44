//go:build unix

// Package mmapfile maps files into memory for reading: pack indexes and
// search index segments, read in part and shared between processes.
package mmapfile

import (
	"os"
	"syscall"
)

// Map maps a file read-only; unmap releases it. An empty file, or one
// that is not a regular file, maps to no bytes.
func Map(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
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
