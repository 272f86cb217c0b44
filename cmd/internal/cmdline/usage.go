package cmdline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/internal/lazy"
)

// usageError is a mistake in how the command was called: exit status 2.
// cmd is the command it was made for, for the hint; hint, when set, says
// more than "see --help".
type usageError struct {
	msg, cmd, hint string
}

func (e *usageError) Error() string { return e.msg }

// UserError marks the error as the user's to correct.
func (e *usageError) UserError() {}

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// usageHint is what a usage error's hint says: the suggestion it has,
// else the help of the command it was made for.
func usageHint(u *usageError) string {
	if u.hint != "" {
		return u.hint
	}
	if u.cmd != "" {
		return "see git snap " + u.cmd + " --help"
	}
	return "see git snap --help"
}

// forCommand makes the usage errors in err's chain name cmd, unless
// they name one already.
func forCommand(err error, cmd string) error {
	var u *usageError
	if errors.As(err, &u) && u.cmd == "" {
		u.cmd = cmd
	}
	return err
}

// exitStatus ends the process with code and prints nothing more: what
// was to say is said (git snap with no command prints the usage and
// fails, as git does).
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// unknownCommand is the error for a name that is no command, with the
// commands it may be a slip for.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.VisibleCommands() {
		names = append(names, c.Names()...)
	}
	u := &usageError{msg: fmt.Sprintf("%q is not a git snap command", name)}
	if near := suggest(name, names); len(near) > 0 {
		u.hint = "did you mean " + orList(near, func(s string) string { return "git snap " + s }) + "? (git snap --help lists the commands)"
	}
	return u
}

// flagError matches the flag parser's messages, to say them again in
// git's words with the option as it was typed.
var (
	undefinedFlag = lazy.Regexp(`^flag provided but not defined: -+(.+)$`)
	badFlagValue  = lazy.Regexp(`^invalid value "(.*)" for flag -+([^:]+): (.*)$`)
	needsValue    = lazy.Regexp(`^flag needs an argument: -+(.+)$`)
)

// flagUsageError turns an error of the flag parser into a usage error
// for cmd (nil for options before the command), with a suggestion for
// an unknown option that is a slip for a known one.
func (e *env) flagUsageError(app *cli.App, cmd *cli.Command, err error) error {
	name, where := "git snap", ""
	flags := app.VisibleFlags()
	u := &usageError{}
	if cmd != nil {
		name, where = "git snap "+cmd.Name, cmd.Name+": "
		flags = append(slices.Clone(cmd.VisibleFlags()), flags...)
		u.cmd = cmd.Name
	}
	msg := err.Error()
	switch {
	case undefinedFlag().MatchString(msg):
		opt := undefinedFlag().FindStringSubmatch(msg)[1]
		u.msg = fmt.Sprintf("%sunknown option %s", where, e.asTyped(opt))
		var known []string
		for _, f := range flags {
			known = append(known, f.Names()...)
		}
		if near := suggest(opt, known); len(near) > 0 {
			u.hint = "did you mean " + orList(near, dashed) + "? (see " + name + " --help)"
		}
	case badFlagValue().MatchString(msg):
		m := badFlagValue().FindStringSubmatch(msg)
		u.msg = fmt.Sprintf("%s%s takes %s, not %q", where, e.asTyped(m[2]), valueKind(flags, m[2]), m[1])
	case needsValue().MatchString(msg):
		u.msg = fmt.Sprintf("%s%s needs a value", where, e.asTyped(needsValue().FindStringSubmatch(msg)[1]))
	default:
		u.msg = where + msg
	}
	return u
}

// asTyped is the option named name as the user typed it: with one dash
// or two, as given; two for a long name not found.
func (e *env) asTyped(name string) string {
	for _, a := range e.args {
		if a == "--" {
			break
		}
		opt, _, _ := strings.Cut(a, "=")
		if strings.HasPrefix(opt, "-") && strings.TrimLeft(opt, "-") == name {
			return opt
		}
	}
	return dashed(name)
}

// dashed writes an option's name as git does: -n, --max-count.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// valueKind says what a flag's value must be.
func valueKind(flags []cli.Flag, name string) string {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.IntFlag, *quietInt, *cli.Int64Flag, *cli.UintFlag:
			return "a whole number"
		case *cli.DurationFlag:
			return "a duration such as 90s, 15m or 2h"
		case *cli.BoolFlag:
			return "true or false"
		}
	}
	return "a value of another kind"
}

// orList writes names as "a", "a or b", "a, b or c".
func orList(names []string, show func(string) string) string {
	var shown []string
	for _, n := range names {
		shown = append(shown, show(n))
	}
	if len(shown) == 1 {
		return shown[0]
	}
	return strings.Join(shown[:len(shown)-1], ", ") + " or " + shown[len(shown)-1]
}

// suggest returns the candidates that typed is likely a slip for: those
// it starts (when it is one), else the nearest within an edit distance
// of two (one for words of two letters), at most three.
func suggest(typed string, candidates []string) []string {
	typed = strings.ToLower(typed)
	if len(typed) < 2 {
		return nil
	}
	var prefixed []string
	for _, c := range candidates {
		if strings.HasPrefix(c, typed) && c != typed {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed
	}
	limit := 2 // edits
	if len(typed) <= 2 {
		limit = 1
	}
	best := limit
	var near []string
	for _, c := range candidates {
		if len(c) < 2 {
			continue // -a, -n: every slip is near a one-letter name
		}
		switch d := editDistance(typed, c); {
		case d < best:
			best, near = d, []string{c}
		case d == best && !slices.Contains(near, c):
			near = append(near, c)
		}
	}
	if len(near) > 3 {
		near = near[:3]
	}
	return near
}

// editDistance counts the insertions, deletions, substitutions and
// swaps of two neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// quietDefaults keeps "(default: false)" and "(default: 0)" out of help:
// a flag that is off or zero by default says so in its usage if it
// matters (-n says what 0 means).
func quietDefaults(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			if !f.Value {
				f.DisableDefaultText = true
			}
		case *cli.IntFlag:
			if f.Value == 0 && f.DefaultText == "" {
				out[i] = &quietInt{IntFlag: f}
				continue
			}
		}
		out[i] = f
	}
	return out
}

// quietInt is an IntFlag whose help shows no default.
type quietInt struct{ *cli.IntFlag }

// GetDefaultText is empty: the usage says what zero means.
func (quietInt) GetDefaultText() string { return "" }

// String is the flag's line in the help, without the default.
func (q quietInt) String() string { return cli.FlagStringer(q) }
