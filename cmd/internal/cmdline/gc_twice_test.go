//go:build linux

package cmdline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// gcKeepMark is the first line of the .keep git snap gc writes (see
// gitstore's keepMark), written here separately.
const gcKeepMark = "git-snap gc: "

// TestTwoGCsAtOnce runs two git snap gc processes on one repository at
// once, three rounds, a snapshot saved between rounds so that each
// round packs other objects. Each gc ends 0, or 1 with a one-line error
// and no panic; git fsck --strict is clean; every session's snapshots
// all read; and exactly one .keep carries gc's mark.
func TestTwoGCsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	save := func(session string, i int) {
		doc := fmt.Sprintf(`{"messages":[{"id":"%d","role":"user","content":"%s %d"}]}`, i, strings.Repeat("text ", 200), i)
		if code, out := runFor(t, bin, dir, doc, "save", "--session", session); code != 0 {
			t.Fatalf("save: %d %s", code, out)
		}
	}
	for i := range 6 {
		save(fmt.Sprintf("s%d", i%3), i)
	}
	for round := range 3 {
		var wg sync.WaitGroup
		codes, outs := make([]int, 2), make([]string, 2)
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[p], outs[p] = runFor(t, bin, dir, "", "gc")
			}()
		}
		wg.Wait()
		for p := range 2 {
			noCrash(t, "gc", outs[p])
			if codes[p] != 0 && (codes[p] != 1 || strings.Count(strings.TrimSpace(outs[p]), "\n") > 1) {
				t.Errorf("round %d: gc exit %d:\n%s", round, codes[p], outs[p])
			}
		}
		gitIn(t, dir, "", "fsck", "--strict", "--no-progress")
		for i := range 3 {
			session := fmt.Sprintf("s%d", i)
			n := strings.Count(gitIn(t, dir, "", "rev-list", "refs/snap/"+session), "\n") + 1
			for back := range n {
				if code, out := runFor(t, bin, dir, "", "export", fmt.Sprintf("%s~%d", session, back)); code != 0 {
					t.Errorf("round %d: export %s~%d: %d %s", round, session, back, code, out)
				}
			}
		}
		keeps, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.keep"))
		own := 0
		for _, k := range keeps {
			if b, err := os.ReadFile(k); err == nil && strings.HasPrefix(string(b), gcKeepMark) {
				own++
			}
		}
		if own != 1 {
			t.Errorf("round %d: %d keeps marked by gc, want 1 (%v)", round, own, keeps)
		}
		if l := leftovers(t, dir); len(l) > 0 {
			t.Errorf("round %d: left %v", round, l)
		}
		save("s0", 100+round)
	}
}
