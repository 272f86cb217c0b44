package proc

import (
	"math"
	"runtime/debug"
)

// StepMemoryLimit is the heap a command reading a transcript in steps
// has the collector aim under: a step leaves garbage the next one need
// not add to (docs/design.md §7: any command stays under 100 MB).
const StepMemoryLimit = 60 << 20

// LimitMemory has the collector aim under limit bytes of heap, unless
// GOMEMLIMIT set a limit.
func LimitMemory(limit int64) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(limit)
	}
}
