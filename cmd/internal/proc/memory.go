package proc

import (
	"math"
	"runtime/debug"
)

// StepMemoryLimit is the heap size that a command reading a transcript
// in steps asks the garbage collector to stay under. Each step leaves
// garbage that should be collected before the next step adds more
// (docs/design.md §7: every command stays under 100 MB).
const StepMemoryLimit = 60 << 20

// LimitMemory asks the garbage collector to keep the heap under limit
// bytes, unless GOMEMLIMIT has set a limit.
func LimitMemory(limit int64) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(limit)
	}
}
