package render

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// FormatError says what is wrong with a --format or --pretty.
type FormatError struct{ Msg string }

// Error is the message.
func (e *FormatError) Error() string { return e.Msg }

// UserError marks the error as the caller's to correct.
func (e *FormatError) UserError() {}

// Pretty is how log writes each snapshot: one of the built-in forms or a
// format string with placeholders, parsed once.
type Pretty struct {
	name  string // oneline, short, medium, full; "" for a format string
	parts []formatPart
	sep   bool // format: (a separator between snapshots), not tformat: (a terminator)
}

// formatPart is literal text or a placeholder's value.
type formatPart struct {
	lit   string
	field func(*fieldContext) string
}

// fieldContext is what a placeholder reads.
type fieldContext struct {
	e           storage.Entry
	checkpoints []string
	p           Palette
	now         time.Time
}

// Prettys are the built-in forms --pretty names.
var Prettys = []string{"oneline", "short", "medium", "full"}

// ParsePretty reads a --pretty value (oneline, short, medium, full,
// format:<string>, tformat:<string>, or a string with a %) or, with
// isFormat, a --format value (always a format string, as tformat:).
func ParsePretty(v string, isFormat bool) (Pretty, error) {
	if isFormat {
		return parseFormat(v, false)
	}
	for _, name := range Prettys {
		if v == name {
			return Pretty{name: name}, nil
		}
	}
	if f, ok := strings.CutPrefix(v, "format:"); ok {
		return parseFormat(f, true)
	}
	if f, ok := strings.CutPrefix(v, "tformat:"); ok {
		return parseFormat(f, false)
	}
	if strings.Contains(v, "%") {
		return parseFormat(v, false)
	}
	return Pretty{}, &FormatError{fmt.Sprintf("--pretty %q is not a form: write one of %s, or format:<string> with placeholders such as %%h %%s (see git snap log --help)", v, strings.Join(Prettys, ", "))}
}

// IsOneline reports whether p writes one line per snapshot, for callers
// that choose what goes beside it (a diffstat under a oneline has no
// blank line before it).
func (p Pretty) IsOneline() bool { return p.name == "oneline" }

// colourNames are what %C(…) takes, with their ANSI codes.
var colourNames = map[string]string{
	"red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36",
	"bold": "1", "dim": "2", "reset": "",
}

// placeholders are the one- and two-letter placeholders after %, as git
// log names them where git has the same thing.
var placeholders = map[string]func(*fieldContext) string{
	"H": func(c *fieldContext) string { return c.e.ID.String() },
	"h": func(c *fieldContext) string { return c.e.ID.String()[:12] },
	"P": func(c *fieldContext) string { return parents(c.e, 40) },
	"p": func(c *fieldContext) string { return parents(c.e, 12) },
	"T": func(c *fieldContext) string { return c.e.Tree.String() },
	"t": func(c *fieldContext) string { return c.e.Tree.String()[:12] },
	"s": func(c *fieldContext) string { return subject(c.e) },
	"d": func(c *fieldContext) string { return " (" + decoration(c.e, c.checkpoints) + ")" },
	"D": func(c *fieldContext) string { return decoration(c.e, c.checkpoints) },
	"n": func(*fieldContext) string { return "\n" },
	"%": func(*fieldContext) string { return "%" },
}

// named are the %(name) placeholders, for what only a snapshot has.
var named = map[string]func(*fieldContext) string{
	"id":          placeholders["H"],
	"session":     func(c *fieldContext) string { return c.e.Header.Session },
	"seq":         func(c *fieldContext) string { return strconv.Itoa(c.e.Header.Seq) },
	"turn":        func(c *fieldContext) string { return strconv.Itoa(c.e.Header.Turn) },
	"label":       func(c *fieldContext) string { return c.e.Header.Label },
	"message":     func(c *fieldContext) string { return c.e.Header.Message },
	"source":      func(c *fieldContext) string { return c.e.Header.Source },
	"code":        func(c *fieldContext) string { return c.e.Header.Code },
	"code:short":  func(c *fieldContext) string { return c.e.Header.Code[:min(12, len(c.e.Header.Code))] },
	"dirty":       func(c *fieldContext) string { return map[bool]string{true: "dirty"}[c.e.Header.Dirty] },
	"messages":    func(c *fieldContext) string { return strconv.Itoa(c.e.Header.Messages) },
	"events":      func(c *fieldContext) string { return strconv.Itoa(c.e.Header.Events) },
	"files":       func(c *fieldContext) string { return strconv.Itoa(c.e.Header.Files) },
	"checkpoints": func(c *fieldContext) string { return strings.Join(c.checkpoints, ", ") },
	"date":        func(c *fieldContext) string { return c.e.Header.Time.Format(DateLayout) },
}

// dates are the date placeholders; each may follow %a or %c, since a
// snapshot's author and committer date are the same.
var dates = map[byte]func(*fieldContext) string{
	'd': named["date"],
	'i': func(c *fieldContext) string { return c.e.Header.Time.Format("2006-01-02 15:04:05 -0700") },
	'I': func(c *fieldContext) string { return c.e.Header.Time.Format(time.RFC3339) },
	't': func(c *fieldContext) string { return strconv.FormatInt(c.e.Header.Time.Unix(), 10) },
	's': func(c *fieldContext) string { return c.e.Header.Time.Format("2006-01-02") },
	'r': func(c *fieldContext) string { return RelativeDate(c.e.Header.Time, c.now) },
}

// parseFormat reads a format string into parts; a % that starts no
// placeholder is an error naming where it is.
func parseFormat(f string, sep bool) (Pretty, error) {
	out := Pretty{sep: sep}
	lit := strings.Builder{}
	add := func(fn func(*fieldContext) string) {
		if lit.Len() > 0 {
			out.parts = append(out.parts, formatPart{lit: lit.String()})
			lit.Reset()
		}
		out.parts = append(out.parts, formatPart{field: fn})
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		fn, n, err := placeholder(f[i+1:])
		if err != nil {
			return Pretty{}, &FormatError{fmt.Sprintf("--format: %s at byte %d of %q (see git snap log --help for the placeholders)", err, i, f)}
		}
		add(fn)
		i += n
	}
	if lit.Len() > 0 {
		out.parts = append(out.parts, formatPart{lit: lit.String()})
	}
	return out, nil
}

// placeholder reads the placeholder at the start of s (after its %) and
// says how many bytes it took.
func placeholder(s string) (func(*fieldContext) string, int, error) {
	if s == "" {
		return nil, 0, fmt.Errorf("a lone %%")
	}
	if s[0] == '(' {
		name, _, ok := strings.Cut(s[1:], ")")
		if !ok {
			return nil, 0, fmt.Errorf("%%( is not closed")
		}
		if fn, ok := named[name]; ok {
			return fn, len(name) + 2, nil
		}
		return nil, 0, fmt.Errorf("%%(%s) is not a placeholder", name)
	}
	if (s[0] == 'a' || s[0] == 'c') && len(s) > 1 {
		if fn, ok := dates[s[1]]; ok {
			return fn, 2, nil
		}
	}
	if s[0] == 'C' {
		return colour(s[1:])
	}
	if fn, ok := placeholders[s[:1]]; ok {
		return fn, 1, nil
	}
	return nil, 0, fmt.Errorf("%%%c is not a placeholder", s[0])
}

// colour reads what follows %C: red, green, blue, reset, or (name).
func colour(s string) (func(*fieldContext) string, int, error) {
	for _, name := range []string{"red", "green", "blue", "reset"} {
		if strings.HasPrefix(s, name) {
			return colourField(colourNames[name]), len(name) + 1, nil
		}
	}
	if rest, ok := strings.CutPrefix(s, "("); ok {
		name, _, closed := strings.Cut(rest, ")")
		if code, known := colourNames[name]; closed && known {
			return colourField(code), len(name) + 3, nil
		}
		return nil, 0, fmt.Errorf("%%C(%s) is not a colour (red, green, yellow, blue, magenta, cyan, bold, dim, reset)", name)
	}
	return nil, 0, fmt.Errorf("%%C must be followed by red, green, blue, reset or (name)")
}

// colourField switches colour when the palette is on, as git does only
// when colour is enabled.
func colourField(code string) func(*fieldContext) string {
	return func(c *fieldContext) string {
		if !c.p.On {
			return ""
		}
		return "\x1b[" + code + "m"
	}
}

func parents(e storage.Entry, n int) string {
	var ids []string
	for _, h := range append([]storage.ID{e.Parent}, e.Merged...) {
		if !h.IsZero() {
			ids = append(ids, h.String()[:n])
		}
	}
	return strings.Join(ids, " ")
}

// subject is the one line that says what a snapshot is: its message,
// else its label.
func subject(e storage.Entry) string {
	if e.Header.Message != "" {
		return strings.SplitN(e.Header.Message, "\n", 2)[0]
	}
	return e.Header.Label
}

func decoration(e storage.Entry, checkpoints []string) string {
	deco := "snap " + e.Header.Session + "#" + strconv.Itoa(e.Header.Seq)
	for _, cp := range checkpoints {
		deco += ", checkpoint: " + cp
	}
	return deco
}

// LogWriter writes snapshots one after another in a Pretty form.
type LogWriter struct {
	W      io.Writer
	Pretty Pretty
	Color  Palette
	Now    time.Time // for relative dates
	// Graph, when set, draws the history's lines beside each snapshot
	// (log --graph).
	Graph *Graph
	n     int
}

// Write writes one snapshot with the checkpoints on it.
func (l *LogWriter) Write(e storage.Entry, checkpoints []string) {
	if l.Graph != nil {
		var b bytes.Buffer
		w := l.W
		l.W = &b
		l.write(e, checkpoints)
		l.W = w
		l.Graph.Entry(w, e, bytes.TrimPrefix(b.Bytes(), []byte("\n")))
		return
	}
	l.write(e, checkpoints)
}

// More writes what follows a snapshot (its --stat, --patch), beside the
// graph when there is one.
func (l *LogWriter) More(text []byte) {
	if l.Graph != nil {
		l.Graph.More(l.W, text)
		return
	}
	_, _ = l.W.Write(text) // a failed write shows in the writer's own error, as every line's
}

func (l *LogWriter) write(e storage.Entry, checkpoints []string) {
	defer func() { l.n++ }()
	switch l.Pretty.name {
	case "oneline":
		Oneline(l.W, l.Color, e, checkpoints)
		return
	case "short", "medium", "full", "":
		if l.Pretty.parts == nil {
			writeEntry(l.W, l.Color, e, checkpoints, l.Pretty.name)
			return
		}
	}
	c := &fieldContext{e: e, checkpoints: checkpoints, p: l.Color, now: l.Now}
	var b strings.Builder
	if l.Pretty.sep && l.n > 0 {
		b.WriteByte('\n')
	}
	for _, part := range l.Pretty.parts {
		if part.field != nil {
			b.WriteString(part.field(c))
		} else {
			b.WriteString(part.lit)
		}
	}
	if !l.Pretty.sep {
		b.WriteByte('\n')
	}
	fmt.Fprint(l.W, b.String())
}

// End finishes the output: a format: string ends without a newline of
// its own, as git's does, so one is added after the last snapshot.
func (l *LogWriter) End() {
	if l.Pretty.sep && l.n > 0 {
		fmt.Fprintln(l.W)
	}
}

// RelativeDate says how long before now t was, in git's words ("3 hours
// ago", "2 weeks ago", "1 year, 2 months ago").
func RelativeDate(t, now time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "in the future"
	}
	secs := int64(d / time.Second)
	ago := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch days := (secs + 43200) / 86400; {
	case secs < 90:
		return ago(secs, "second")
	case secs < 90*60:
		return ago((secs+30)/60, "minute")
	case secs < 36*3600:
		return ago((secs+1800)/3600, "hour")
	case days < 14:
		return ago(days, "day")
	case days < 70:
		return ago((days+3)/7, "week")
	case days < 365:
		return ago((days+15)/30, "month")
	case days < 1825:
		months := (days*12*2 + 365) / (365 * 2)
		years, months := months/12, months%12
		if months == 0 {
			return ago(years, "year")
		}
		y := map[bool]string{true: "1 year", false: fmt.Sprintf("%d years", years)}[years == 1]
		m := map[bool]string{true: "1 month", false: fmt.Sprintf("%d months", months)}[months == 1]
		return y + ", " + m + " ago"
	default:
		return ago((days+183)/365, "year")
	}
}
