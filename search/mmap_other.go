//go:build !unix

package search

import "os"

// mapFile reads the file where mapping is not available.
func mapFile(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
