//go:build !unix

package mmapfile

import "os"

// Map reads the file where mapping is not available.
func Map(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
