package cmdline

import "github.com/urfave/cli/v2"

// withNames gives each flag of the kinds git-snap defines names found
// once. cli's Names runs a regular expression over each name at every
// call (for names written as version 1 wrote them), and after parsing
// cli asks, for each flag of a command, every other flag's names
// (runFlagActions → IsSet → lookupFlag): a cost quadratic in a command's
// flags, a tenth of what log -n 20 took. The wrappers embed the flag
// they wrap, so that cli and help see its methods, and its help line
// and value, as they were.
func withNames(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		names := f.Names()
		switch f := f.(type) {
		case *cli.BoolFlag:
			out[i] = &namedBool{f, names}
		case *cli.StringFlag:
			out[i] = &namedString{f, names}
		case *cli.IntFlag:
			out[i] = &namedInt{f, names}
		case *cli.Int64Flag:
			out[i] = &namedInt64{f, names}
		case *quietInt:
			f.names = names
			out[i] = f
		default:
			out[i] = f
		}
	}
	return out
}

// unwrapFlag is the flag withNames wrapped, for a switch on its kind.
func unwrapFlag(f cli.Flag) cli.Flag {
	switch f := f.(type) {
	case *namedBool:
		return f.BoolFlag
	case *namedString:
		return f.StringFlag
	case *namedInt:
		return f.IntFlag
	case *namedInt64:
		return f.Int64Flag
	}
	return f
}

type namedBool struct {
	*cli.BoolFlag
	names []string
}

func (f *namedBool) Names() []string { return f.names }

type namedString struct {
	*cli.StringFlag
	names []string
}

func (f *namedString) Names() []string { return f.names }

type namedInt struct {
	*cli.IntFlag
	names []string
}

func (f *namedInt) Names() []string { return f.names }

type namedInt64 struct {
	*cli.Int64Flag
	names []string
}

func (f *namedInt64) Names() []string { return f.names }
