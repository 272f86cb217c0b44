package cmdline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdPull(e *env) *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "fetch a remote's sessions and bring them into the local ones",
		ArgsUsage: "[REMOTE] [SESSION…]",
		Description: `Fetches, then for each session: creates it, fast-forwards it, or, when both sides
moved on, records a merge snapshot whose parents are both tips, so neither side is ever
lost. The merge unites messages and events by id (local first, then the remote's the
local side lacks) and merges other members and files three ways; where both sides
changed a value differently the local one is kept and the path is reported. Checkpoints
the remote has and this repository lacks are added. It prints a line for each session
it moved; those already up to date are named when there are at most 10, else counted.

Examples:
   git snap pull
   git snap pull origin fix-login`,
		Flags:  remoteFlags(),
		Action: action(e, shape{max: -1}, e.parseRemote, runPull),
	}
}

// runPull fetches and brings each session in, saying what it did, also
// when a later session failed. A remote of 100k sessions is a few
// hundred bytes of refs and results each, 50 MB live, which GOGC alone
// let grow to 150 MB resident.
func runPull(ctx context.Context, d *deps, o gitstore.RemoteOptions) error {
	proc.LimitMemory(readMemoryLimit)
	res, err := d.repo.Pull(ctx, o)
	printPull(d.out, res)
	return err
}

// printPull says what a pull or a bundle import did to each session that
// moved, a line each, written at once; sessions up to date are named
// while they are few, and counted when a remote of 100k sessions would
// print a line for each.
func printPull(out io.Writer, res []gitstore.PullResult) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	upToDate := 0
	for _, r := range res {
		if r.Action == gitstore.PullUpToDate && r.Note == "" {
			upToDate++
		}
	}
	for _, r := range res {
		if r.Action == gitstore.PullUpToDate && r.Note == "" && upToDate > maxUpToDateLines {
			continue
		}
		line := fmt.Sprintf("%s: %s", r.Session, r.Action)
		if !r.Result.IsZero() {
			line += " " + r.Result.String()[:12]
		}
		if len(r.Conflicts) > 0 {
			line += fmt.Sprintf(" (kept the local side at %s)", strings.Join(r.Conflicts, ", "))
		}
		fmt.Fprintln(w, line)
		if r.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", r.Note)
		}
	}
	if upToDate > maxUpToDateLines {
		fmt.Fprintf(w, "%d sessions up to date\n", upToDate)
	}
}

// maxUpToDateLines is how many sessions up to date printPull names.
const maxUpToDateLines = 10
