//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package refwatch

// looksOnly: kqueue, fsnotify's way here, holds a file open for every
// file of a watched folder, and a folder of 10k session refs would pass
// the limit on open files (256 by default on macOS).
const looksOnly = true
