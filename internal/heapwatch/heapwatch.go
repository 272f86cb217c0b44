// Package heapwatch measures the peak heap size of a piece of code. Tests
// use it to check a command's memory bound (docs/design.md §7: every
// command stays within 100 MB) without timing anything. The test runs
// itself again in a child process with a strict garbage collector
// setting, the child samples its heap while it works, and the parent
// reads the peak from the child's output.
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

// Peak runs f and returns the largest heap size sampled while it ran.
// It forces a collection first, then samples every millisecond the live
// objects plus the garbage not yet collected
// (/memory/classes/heap/objects:bytes).
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

// marker starts the line on which a child prints its peak.
const marker = "peak heap: "

// Report prints the child's peak for InChild to read.
func Report(peak int64) { fmt.Printf("%s%d\n", marker, peak) }

// InChild runs the test named test (a -test.run pattern) again in a
// child process and returns the peak the child reported. env is added to
// the child's environment; the test uses one of these variables to know
// it is running as the child. The child's garbage collector keeps the
// heap close to the live data (GOGC=10, no memory limit).
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
