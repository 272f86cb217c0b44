//go:build !unix

package refs

// processAlive cannot tell on this system; locks then go stale by age.
func processAlive(int) bool { return true }
