//go:build linux

package cmdline

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestTwoBundleImportsAtOnce imports two bundles into one repository at
// once, three rounds: the same bundle twice, and two bundles of one
// session that went apart (each clone saved a snapshot of its own onto
// the same history), both new to the repository. Each import ends 0;
// git fsck --strict is clean; the session's history holds both sides'
// snapshots, none lost; the checkpoint a bundle carries is there.
func TestTwoBundleImportsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	tmp := t.TempDir()
	save := func(dir, session, text string) {
		t.Helper()
		doc := fmt.Sprintf(`{"messages":[{"id":%q,"role":"user","content":%q}]}`, text, text)
		if code, out := runFor(t, bin, dir, doc, "save", "--session", session); code != 0 {
			t.Fatalf("save: %d %s", code, out)
		}
	}
	cli := func(dir string, args ...string) {
		t.Helper()
		if code, out := runFor(t, bin, dir, "", args...); code != 0 {
			t.Fatalf("%s: %d %s", strings.Join(args, " "), code, out)
		}
	}
	for round := range 3 {
		origin := codeRepo(t)
		session := fmt.Sprintf("s%d", round)
		save(origin, session, "base one")
		save(origin, session, "base two")
		base := filepath.Join(tmp, fmt.Sprintf("base%d.bundle", round))
		cli(origin, "export", "--bundle", base, "--session", session)
		var bundles [2]string
		var tips [2]string
		for side := range 2 {
			clone := codeRepo(t)
			cli(clone, "import", base)
			save(clone, session, fmt.Sprintf("side %d", side))
			if side == 0 {
				cli(clone, "checkpoint", "--session", session, "side0")
			}
			tips[side] = gitIn(t, clone, "", "rev-parse", "refs/snap/"+session)
			bundles[side] = filepath.Join(tmp, fmt.Sprintf("side%d-%d.bundle", side, round))
			cli(clone, "export", "--bundle", bundles[side], "--session", session)
		}
		for _, pair := range [][2]string{{bundles[0], bundles[0]}, {bundles[0], bundles[1]}} {
			dir := codeRepo(t)
			var wg sync.WaitGroup
			codes, outs := make([]int, 2), make([]string, 2)
			for p := range 2 {
				wg.Go(func() { codes[p], outs[p] = runFor(t, bin, dir, "", "import", pair[p]) })
			}
			wg.Wait()
			for p := range 2 {
				noCrash(t, "import", outs[p])
				if codes[p] != 0 {
					t.Errorf("round %d: import %s: exit %d\n%s", round, filepath.Base(pair[p]), codes[p], outs[p])
				}
			}
			gitIn(t, dir, "", "fsck", "--strict", "--no-progress")
			history := gitIn(t, dir, "", "rev-list", "refs/snap/"+session)
			for p, b := range pair {
				side := strings.TrimSuffix(filepath.Base(b), fmt.Sprintf("-%d.bundle", round))
				if tip := tips[side[len(side)-1]-'0']; !strings.Contains(history, tip) {
					t.Errorf("round %d: %s's tip %s is not in the session's history after import %d", round, side, tip, p)
				}
			}
			if out := gitIn(t, dir, "", "for-each-ref", "refs/snap-tags/"); !strings.Contains(out, "side0") {
				t.Errorf("round %d: the checkpoint side0 was not imported: %q", round, out)
			}
		}
	}
}
