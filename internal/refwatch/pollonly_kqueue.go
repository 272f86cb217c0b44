//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package refwatch

// pollOnly is true here because fsnotify uses kqueue on these systems,
// which keeps a file open for every file in a watched directory. A
// directory of 10k session refs would exceed the limit on open files
// (256 by default on macOS).
const pollOnly = true
