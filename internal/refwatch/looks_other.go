//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package refwatch

// looksOnly: the system tells of changes without a file open for each.
const looksOnly = false
