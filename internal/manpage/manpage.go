// Package manpage writes manual pages in roff (man(7) macros). It is a
// few dozen lines rather than a Markdown-to-roff converter, so that the
// binary, whose hook runs on every agent turn, does not link a document
// renderer just for the pages it installs. The pages carry no date or
// version, so that the copies kept in the repository change only when
// the text does.
package manpage

import (
	"fmt"
	"io"
	"strings"
)

// Page is one manual page.
type Page struct {
	Name     string // git-snap-log
	Section  int    // 1
	Manual   string // the title of the manual, in the page's header
	Summary  string // one line, after the name
	Synopsis []string
	Sections []Section
}

// Section is a heading and the text under it.
type Section struct {
	Title string
	Text  string // paragraphs; lines starting with spaces are shown verbatim
	Items []Item // a tagged list after Text
	Roff  string // raw roff written after Items, such as cross references
}

// Item is an entry in a tagged list, such as an option or a command.
type Item struct {
	Tag  string // roff shown in bold; build it with Bold, Italic and Escape
	Text string
}

// Write writes p as roff.
func Write(w io.Writer, p Page) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %d \"\" %s %s\n", quote(strings.ToUpper(p.Name)), p.Section, quote(p.Name), quote(p.Manual))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", Escape(p.Name), Escape(p.Summary))
	if len(p.Synopsis) > 0 {
		b.WriteString(".SH SYNOPSIS\n.nf\n")
		for _, s := range p.Synopsis {
			b.WriteString(line(Escape(s)))
		}
		b.WriteString(".fi\n")
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, ".SH %s\n", quote(strings.ToUpper(s.Title)))
		text(&b, s.Text, ".PP")
		for _, it := range s.Items {
			b.WriteString(".TP\n" + line(it.Tag))
			text(&b, it.Text, ".IP")
		}
		if s.Roff != "" {
			b.WriteString(strings.TrimSuffix(s.Roff, "\n") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// text writes paragraphs. Plain lines are filled; indented lines
// (examples) are kept verbatim. sep starts every paragraph except the
// first: .PP in a section, .IP in a list item so that it stays indented.
func text(b *strings.Builder, s, sep string) {
	verbatim, para, first := false, false, true
	for _, l := range strings.Split(strings.Trim(s, "\n"), "\n") {
		indented := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		if strings.TrimSpace(l) == "" || (!indented && verbatim) {
			if verbatim {
				b.WriteString(".fi\n.RE\n")
				verbatim = false
			}
			para = false
			if strings.TrimSpace(l) == "" {
				continue
			}
		}
		switch {
		case indented && !verbatim:
			b.WriteString(".RS 4\n.nf\n")
			verbatim, first = true, false
			l = strings.TrimSpace(l)
		case indented:
			l = strings.TrimSpace(l)
		case !para:
			if !first {
				b.WriteString(sep + "\n")
			}
			para, first = true, false
		}
		b.WriteString(line(Escape(l)))
	}
	if verbatim {
		b.WriteString(".fi\n.RE\n")
	}
}

// line ends a line of text and escapes a leading . or ' so that roff
// does not read the line as a request.
func line(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s + "\n"
}

// Escape makes s safe as roff text. It escapes backslashes, and hyphens,
// which would otherwise become typographic hyphens and break copying
// and pasting of options.
func Escape(s string) string { return escaper.Replace(s) }

var escaper = strings.NewReplacer(`\`, `\e`, "-", `\-`)

// Bold returns s escaped and in bold.
func Bold(s string) string { return `\fB` + Escape(s) + `\fR` }

// Italic returns s escaped and in italics (underlined on a terminal).
func Italic(s string) string { return `\fI` + Escape(s) + `\fR` }

func quote(s string) string { return `"` + strings.ReplaceAll(Escape(s), `"`, `\(dq`) + `"` }
