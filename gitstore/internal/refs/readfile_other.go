//go:build !unix

package refs

import "os"

// readLoose reads a loose ref's file.
func readLoose(path string) ([]byte, error) { return os.ReadFile(path) }
