//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package refwatch

// pollOnly is false here because the system reports changes without a
// file open for each watched file.
const pollOnly = false
