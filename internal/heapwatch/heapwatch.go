// Package heapwatch measures the heap a piece of code peaks at, for the
// tests that hold a command to a bound of memory (docs/design.md §7:
// any command within 100 MB) without timing anything: the test runs
// itself again in a child process whose collector is kept tight, the
// child samples its heap while it works, and the parent reads the peak.
package heapwatch

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Peak runs f and returns the largest heap sampled while it ran, every
// millisecond: its live objects and the garbage not yet collected
// (/memory/classes/heap/objects:bytes), after a collection before it.
func Peak(f func() error) (int64, error) {
	debug.FreeOSMemory()
	var peak atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			if v := int64(sample[0].Value.Uint64()); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	err := f()
	close(done)
	<-sampled
	return peak.Load(), err
}

// marker starts the line a child prints its peak on.
const marker = "peak heap: "

// Report prints a child's peak for InChild to read.
func Report(peak int64) { fmt.Printf("%s%d\n", marker, peak) }

// InChild runs the test named test (a pattern of -test.run) again in a
// child process, with env added to its environment (the test tells it
// is the child by one of them) and the collector aiming close to what
// is live (GOGC=10, no memory limit), and returns the peak the child
// reported.
func InChild(t testing.TB, test string, env ...string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), "GOGC=10", "GOMEMLIMIT=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", test, err, out)
	}
	_, after, ok := strings.Cut(string(out), marker)
	peak, err := strconv.ParseInt(strings.Fields(after + " x")[0], 10, 64)
	if !ok || err != nil {
		t.Fatalf("child %s printed no peak:\n%s", test, out)
	}
	return peak
}
