package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

type nameOptions struct {
	Session string // the session to name; "" lists the names
	Name    string // the name; "" takes the agent's title
	Force   bool
	Delete  bool
}

func cmdName(e *env) *cli.Command {
	return &cli.Command{
		Name:      "name",
		Usage:     "give a session a short name that every command takes",
		ArgsUsage: "[SESSION [NAME]] | --delete NAME",
		Description: `Gives a session, whose own name is the agent's id (a UUID), a short name: every
revision (NAME, NAME~2, snap/NAME/<checkpoint>) and every session argument then takes
it. Without NAME, the name is made from the title the agent gave the session (Claude
Code's /rename or its summary, OpenCode's title). Without arguments, lists the names,
each with its session and first prompt. Names are this clone's: they live in
.git/snap/names and are not pushed. A session is also named by a unique prefix of its
own name (4 characters or more), as a snapshot by a prefix of its id. A name never
takes an id's place: one that reads as an id (hex, 4 characters or more) is refused,
and a whole snapshot id always names its snapshot.

Examples:
   git snap name 4d5611e5 phoenix
   git snap show phoenix~2
   git snap name 4d5611e5             # named from the agent's own title
   git snap name                      # list them
   git snap name --delete phoenix`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "move a name given to another session"},
			&cli.BoolFlag{Name: "delete", Aliases: []string{"d"}, Usage: "forget the name given (the session stays)"},
		},
		Action: action(e, shape{max: 2}, parseName, runName),
	}
}

func parseName(c *cli.Context) (nameOptions, error) {
	o := nameOptions{Session: c.Args().Get(0), Name: c.Args().Get(1), Force: c.Bool("force"), Delete: c.Bool("delete")}
	if o.Delete && (o.Session == "" || o.Name != "") {
		return o, usagef("name --delete takes one NAME")
	}
	return o, nil
}

// runName names a session, forgets a name, or lists the names.
func runName(ctx context.Context, d *deps, o nameOptions) error {
	s := d.repo
	switch {
	case o.Delete:
		if err := s.Unname(ctx, o.Session); err != nil {
			return err
		}
		fmt.Fprintf(d.out, "forgot name %s\n", o.Session)
		return nil
	case o.Session == "":
		list, err := s.SessionAliases()
		if err != nil {
			return err
		}
		for _, a := range list {
			fmt.Fprintf(d.out, "%s\t%s\t%s\n", a.Name, a.Session, a.About)
		}
		return nil
	}
	found, err := s.FindSession(ctx, o.Session)
	if err != nil {
		return err
	}
	name := o.Name
	if name == "" {
		title, err := session.Title(ctx, s.Storage(), found)
		if err != nil {
			return err
		}
		if name = agent.Slug(title); name == "" {
			return &storage.OptionsError{Msg: fmt.Sprintf("session %s has no title of its agent's to name it by: give NAME (git snap name %s NAME)", found, o.Session)}
		}
	}
	about, err := session.FirstPrompt(ctx, s.Storage(), found)
	if err != nil {
		return err
	}
	a, err := s.NameSession(ctx, name, found, about, o.Force)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "%s\t%s\t%s\n", a.Name, a.Session, a.About)
	return nil
}
