// Package lazy builds values on first use. Every hook call starts a new
// process, and a regular expression compiled into a package variable
// costs start-up time in every command, whether the command uses it or
// not (docs/design.md §7).
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call. Like
// regexp.MustCompile, the function panics if pattern does not compile,
// so pattern should be a constant that a test exercises.
func Regexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
