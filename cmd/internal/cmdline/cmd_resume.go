package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
)

func cmdResume(e *env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "put a session's transcript back where its agent finds it, and say how to resume it",
		ArgsUsage: "REV",
		Description: `Writes the transcript of REV (with its subagents' files) where the agent that recorded
it looks: Claude Code's ~/.claude/projects/<project>/<session>.jsonl, Codex's
~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl, Gemini CLI's
~/.gemini/tmp/<projectHash>/chats/session-….json, Copilot CLI's
~/.copilot/session-state/<session>/events.jsonl. OpenCode keeps its sessions in its
database: its export goes to ~/.local/share/opencode/git-snap/<session>.json, and the
command imports it (opencode import) before it opens the session. A different file
already there (the agent went on past REV) is refused unless --force. Then prints the
command that resumes it.
--files also rewinds the files the agent touched to REV (see git snap rewind), so code
and conversation go back together.

Examples:
   git snap resume fix-login~2
   git snap resume snap/fix-login/green --files`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite a different transcript (and, with --files, files changed since)"},
			&cli.BoolFlag{Name: "files", Usage: "rewind the touched files to REV too"},
		},
		Action: action(e, shape{min: 1, max: 1}, parseResume, runResume),
	}
}

type resumeOptions struct {
	Rev          string
	Force, Files bool
}

func parseResume(c *cli.Context) (resumeOptions, error) {
	return resumeOptions{Rev: c.Args().First(), Force: c.Bool("force"), Files: c.Bool("files")}, nil
}

// runResume writes REV's transcript where its agent resumes it, and with
// --files rewinds the work tree to it.
func runResume(ctx context.Context, d *deps, o resumeOptions) error {
	id, err := d.repo.Resolve(ctx, o.Rev)
	if err != nil {
		return err
	}
	doc, entry, err := d.repo.Read(ctx, id)
	if err != nil {
		return err
	}
	if err := d.needHome(); err != nil {
		return err
	}
	a, err := agent.Lookup(entry.Header.Source, d.agentEnv)
	if err != nil {
		return usagef("snapshot %s was recorded from %q, not from an agent's transcript: nothing to resume", id.String()[:12], entry.Header.Source)
	}
	plan, err := agent.PlanResume(a, entry.Header.Session, doc)
	if err != nil {
		return usagef("%v", err)
	}
	if err := plan.Write(o.Force); err != nil {
		return err
	}
	// The files written are JSON-equal to those read, not the same bytes:
	// the session is told where they are, so that what the agent adds is
	// read on from there and not taken for a rewritten transcript.
	if _, err := d.repo.RecordResume(ctx, entry.Header.Session, id, entry.Header.Source, plan); err != nil {
		return fmt.Errorf("record where the transcript now is: %w", err)
	}
	for _, f := range plan.Files {
		verb := "wrote"
		if f.State == "same" {
			verb = "already there"
		}
		fmt.Fprintf(d.out, "%-13s %s\n", verb, f.Path)
	}
	if o.Files {
		if err := runRewind(ctx, d, rewindOptions{Rev: o.Rev, Force: o.Force}); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.out, "resume it with:\n    %s\n", plan.Command)
	return nil
}
