// Package lazy holds values built on first use. A hook call starts a
// process every time, and every regular expression compiled by a package
// variable is paid for at start-up by every command, used or not
// (docs/design.md §7).
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call; it panics, as
// regexp.MustCompile does, on a pattern that does not compile, so a
// pattern must be a constant a test exercises.
func Regexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
