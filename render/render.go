package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, snapshot.CompareKeys)
	return keys
}

func sortedNames(m map[string]int) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// DateLayout writes dates the way git log does.
const DateLayout = "Mon Jan 2 15:04:05 2006 -0700"

// Entry prints a snapshot header the way git log prints a commit.
func Entry(w io.Writer, p Palette, e storage.Entry, checkpoints []string) {
	writeEntry(w, p, e, checkpoints, "medium")
}

// writeEntry prints a snapshot header in one of the multi-line forms:
// short (id, label and message), medium (everything a header says) or
// full (medium with the parent and tree ids).
func writeEntry(w io.Writer, p Palette, e storage.Entry, checkpoints []string, form string) {
	h := e.Header
	fmt.Fprintf(w, "%s %s\n", p.Yellow("snapshot "+e.ID.String()), p.Cyan("("+decoration(e, checkpoints)+")"))
	if len(e.Merged) > 0 {
		fmt.Fprintf(w, "Merge:    %s\n", parents(e, 12))
	}
	if form == "full" {
		if !e.Parent.IsZero() {
			fmt.Fprintf(w, "Parent:   %s\n", e.Parent)
		}
		fmt.Fprintf(w, "Tree:     %s\n", e.Tree)
	}
	if h.Turn > 0 && form != "short" {
		fmt.Fprintf(w, "Turn:     %d\n", h.Turn)
	}
	if h.Label != "" {
		fmt.Fprintf(w, "Label:    %s\n", h.Label)
	}
	if form != "short" {
		writeHeaderDetails(w, h)
	}
	if h.Message != "" {
		fmt.Fprintln(w)
		for _, line := range strings.Split(strings.TrimRight(h.Message, "\n"), "\n") {
			fmt.Fprintln(w, strings.TrimRight("    "+line, " \t"))
		}
	}
	fmt.Fprintln(w)
}

// writeHeaderDetails prints where a snapshot came from and what it holds.
func writeHeaderDetails(w io.Writer, h snapshot.Header) {
	fmt.Fprintf(w, "Source:   %s\n", h.Source)
	fmt.Fprintf(w, "Date:     %s\n", h.Time.Format(DateLayout))
	if h.Code != "" {
		dirty := ""
		if h.Dirty {
			dirty = " (with uncommitted changes)"
		}
		fmt.Fprintf(w, "Code:     %s%s\n", h.Code, dirty)
	}
	if h.RollbackOf != "" {
		fmt.Fprintf(w, "Rollback: to %s\n", h.RollbackOf)
	}
	fmt.Fprintf(w, "Contents: %s, %s, %s\n", Count(h.Messages, "message"), Count(h.Events, "event"), Count(h.Files, "file"))
}

// Count writes n and its noun, singular for one: "1 file", "2 files".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Oneline prints a snapshot on one line.
func Oneline(w io.Writer, p Palette, e storage.Entry, checkpoints []string) {
	h := e.Header
	line := p.Yellow(e.ID.String()[:12]) + " " + p.Cyan(fmt.Sprintf("%s#%d", h.Session, h.Seq)) + " " + h.Time.Format("2006-01-02 15:04")
	if len(checkpoints) > 0 {
		line += " " + p.Cyan("("+strings.Join(checkpoints, ", ")+")")
	}
	if what := subject(e); what != "" {
		line += " " + what
	}
	fmt.Fprintln(w, line)
}

// Shorten cuts s to n runes on one line, marking the cut.
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… (%d more chars)", len(r)-n)
}

// ConversationOptions choose how much of a conversation is shown, and
// how its records are read.
type ConversationOptions struct {
	Full  bool // nothing shortened: text, thinking, tool inputs and results whole
	Tools bool // tool inputs and results whole
	// Width wraps text at this many columns, Markdown-aware (see
	// WrapMarkdown); 0 keeps lines as they are.
	Width int
	// Reader reads the records as the agent that recorded the session
	// (agent.ReaderFor its header's Source); the zero Reader reads each
	// as the first agent whose shape it has.
	Reader agent.Reader
}

// ConversationWriter renders a conversation for a person, a record at a
// time, so that a long one need not be held whole: role, text, tool
// calls and results, long parts shortened. Only the records that are
// conversation are shown (the others are counted at the end), a
// subagent's records are marked with its name, and preambles the
// harness wrote are folded to one line unless Full.
type ConversationWriter struct {
	w     io.Writer
	p     Palette
	o     ConversationOptions
	other map[string]int
}

// NewConversation starts a conversation written to w.
func NewConversation(w io.Writer, p Palette, o ConversationOptions) *ConversationWriter {
	return &ConversationWriter{w: w, p: p, o: o, other: map[string]int{}}
}

// Record writes record i, raw, viewing it once.
func (c *ConversationWriter) Record(i int, raw any) {
	w, p, o := c.w, c.p, c.o
	rec := o.Reader.Read(raw)
	if !rec.IsConversation() {
		c.other[rec.Kind()]++
		return
	}
	m := rec.Message
	role := m.Role
	if role == "" {
		role = "message"
	}
	head := p.Bold(fmt.Sprintf("[%d] %s", i, role))
	if t := rec.Thread(); t != "" {
		head += " " + p.Cyan("(subagent "+t+")")
	}
	if m.Time != "" {
		head += " " + p.Dim(m.Time)
	}
	if !o.Full && rec.IsPreamble() {
		n := 0
		for _, part := range m.Parts {
			n += len([]rune(part.Text))
		}
		size := ""
		if n > 0 {
			size = fmt.Sprintf(", %d chars", n)
		}
		fmt.Fprintf(w, "%s %s\n", head, p.Dim(fmt.Sprintf("(preamble%s; --full shows it)", size)))
		return
	}
	fmt.Fprintln(w, head)
	if len(m.Parts) == 0 {
		b, _ := snapshot.Marshal(raw)
		fmt.Fprintf(w, "    %s\n", p.Dim(o.shorten(string(b), 160)))
	}
	for _, part := range m.Parts {
		o.writePart(w, p, part)
	}
}

// End writes what was not shown: the records that are not conversation,
// by kind.
func (c *ConversationWriter) End() {
	if len(c.other) == 0 {
		return
	}
	var kinds []string
	n := 0
	for _, k := range sortedNames(c.other) {
		kinds = append(kinds, fmt.Sprintf("%s ×%d", k, c.other[k]))
		n += c.other[k]
	}
	fmt.Fprintf(c.w, "%s\n", c.p.Dim(fmt.Sprintf("(%d other records not shown: %s; --json shows everything)", n, strings.Join(kinds, ", "))))
}

func (o ConversationOptions) shorten(s string, n int) string {
	if o.Full {
		return s
	}
	return Shorten(s, n)
}

func (o ConversationOptions) writePart(w io.Writer, p Palette, part snapshot.Part) {
	switch part.Kind {
	case snapshot.PartText:
		if strings.TrimSpace(part.Text) == "" {
			return
		}
		text := strings.TrimSpace(part.Text)
		if !o.Full {
			text = shortenLines(text, 12)
		}
		writeIndented(w, "    ", WrapMarkdown(text, o.Width-4))
	case snapshot.PartThinking:
		if o.Full {
			writeIndented(w, "    ", p.Dim("(thinking) ")+WrapMarkdown(strings.TrimSpace(part.Text), o.Width-4))
			return
		}
		fmt.Fprintf(w, "    %s\n", p.Dim("(thinking) "+Shorten(part.Text, 120)))
	case snapshot.PartToolCall:
		if o.Full || o.Tools {
			in, _ := snapshot.MarshalIndent(part.Input)
			fmt.Fprintf(w, "    %s\n", p.Cyan("→ "+part.Tool))
			writeIndented(w, "      ", strings.TrimRight(string(in), "\n"))
			return
		}
		in, _ := snapshot.Marshal(part.Input)
		fmt.Fprintf(w, "    %s %s\n", p.Cyan("→ "+part.Tool), Shorten(string(in), 160))
	case snapshot.PartToolResult:
		status := p.Green("← ok")
		if part.IsError {
			status = p.Red("← failed")
		}
		if o.Full || o.Tools {
			fmt.Fprintf(w, "    %s\n", status)
			writeIndented(w, "      ", strings.TrimRight(part.Text, "\n"))
			return
		}
		fmt.Fprintf(w, "    %s %s\n", status, Shorten(part.Text, 160))
	default:
		fmt.Fprintf(w, "    %s\n", p.Dim("("+part.Text+")"))
	}
}

// writeIndented writes each line of s after indent.
func writeIndented(w io.Writer, indent, s string) {
	for _, line := range strings.Split(s, "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
}

// shortenLines keeps the first n lines of s and says how many were cut.
func shortenLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

// Stats prints a document's statistics on one line.
func Stats(w io.Writer, s agent.Numbers) {
	est := ""
	if s.Estimated {
		est = " (some estimated)"
	}
	fmt.Fprintf(w, "Stats:    %s, %s, %s, tokens: %d input, %d cache read, %d cache write, %d output%s\n",
		Count(s.Messages, "message"), Count(s.ToolCalls, "tool call"), Count(s.ModelCalls, "model call"), s.InputTokens, s.CacheReadTokens, s.CacheWriteTokens, s.OutputTokens, est)
}

// DiffOptions choose what a diff shows.
type DiffOptions struct {
	// All shows everything; else the records that are not conversation
	// and the changes of git-snap's bookkeeping members are left out and
	// counted (agent.HideNoise).
	All bool
}

// Diff renders a semantic diff for a person, leaving out what is not
// conversation and git-snap's bookkeeping.
func Diff(w io.Writer, p Palette, d *snapshot.Diff) { DiffWith(w, p, d, DiffOptions{}) }

// DiffWith renders a semantic diff for a person as o says.
func DiffWith(w io.Writer, p Palette, d *snapshot.Diff, o DiffOptions) {
	hidden := agent.Hidden{}
	if !o.All {
		d, hidden = agent.HideNoise(d)
	}
	defer writeHidden(w, p, hidden)
	if d.Empty() {
		fmt.Fprintln(w, "no differences")
		return
	}
	writeElements(w, p, "messages", d.Messages)
	writeElements(w, p, "events", d.Events)
	if len(d.Members) > 0 {
		fmt.Fprintln(w, p.Bold("other members"))
		for _, m := range d.Members {
			switch m.Op {
			case snapshot.OpAdded:
				fmt.Fprintf(w, "%s %s: %s\n", p.Green("+"), m.Path, Compact(m.After))
			case snapshot.OpRemoved:
				fmt.Fprintf(w, "%s %s: %s\n", p.Red("-"), m.Path, Compact(m.Before))
			default:
				fmt.Fprintf(w, "%s %s: %s → %s\n", p.Yellow("~"), m.Path, Compact(m.Before), Compact(m.After))
			}
		}
	}
	if len(d.Files) > 0 {
		fmt.Fprintln(w, p.Bold("files"))
		for _, f := range d.Files {
			writeFileChange(w, p, f)
		}
	}
	writeTokens(w, d.Tokens)
}

func writeTokens(w io.Writer, t snapshot.TokenDelta) {
	est := ""
	if t.Estimated {
		est = " (estimated where usage was not recorded)"
	}
	fmt.Fprintf(w, "tokens: %+d input, %+d cache read, %+d cache write, %+d output%s\n", t.Input, t.CacheRead, t.CacheWrite, t.Output, est)
}

func writeElements(w io.Writer, p Palette, what string, changes []snapshot.ElementChange) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintln(w, p.Bold(what))
	for _, c := range changes {
		switch c.Op {
		case snapshot.OpAdded:
			fmt.Fprintf(w, "%s [%d] %s\n", p.Green("+"), c.Index, Summary(c.After))
		case snapshot.OpRemoved:
			fmt.Fprintf(w, "%s [%d] %s\n", p.Red("-"), c.Index, Summary(c.Before))
		default:
			fmt.Fprintf(w, "%s [%d] %s\n", p.Yellow("~"), c.Index, Summary(c.After))
			var members []snapshot.MemberChange
			snapshotCompare(&members, c.Before, c.After)
			for _, m := range members {
				fmt.Fprintf(w, "      %s: %s → %s\n", m.Path, Compact(m.Before), Compact(m.After))
			}
		}
	}
}

// writeHidden says what a diff left out, and how to see it.
func writeHidden(w io.Writer, p Palette, h agent.Hidden) {
	if !h.Empty() {
		fmt.Fprintln(w, p.Dim("left out: "+h.String()+"; git snap diff --all shows them"))
	}
}

// snapshotCompare lists the JSON paths at which a changed element differs.
func snapshotCompare(out *[]snapshot.MemberChange, a, b any) {
	d, err := snapshot.Compare(map[string]any{"x": a}, map[string]any{"x": b}, nil)
	if err != nil {
		return
	}
	for _, m := range d.Members {
		m.Path = "$" + strings.TrimPrefix(m.Path, "$.x")
		*out = append(*out, m)
	}
}

func writeFileChange(w io.Writer, p Palette, f snapshot.FileChange) {
	mark := map[string]string{snapshot.OpAdded: p.Green("A"), snapshot.OpRemoved: p.Red("D"), snapshot.OpChanged: p.Yellow("M")}[f.Op]
	fmt.Fprintf(w, "%s %s", mark, f.Path)
	if f.ModeA != "" && f.ModeB != "" && f.ModeA != f.ModeB {
		fmt.Fprintf(w, " (mode %s → %s)", f.ModeA, f.ModeB)
	}
	if f.Binary {
		fmt.Fprint(w, " (binary)")
	}
	fmt.Fprintln(w)
	for _, line := range strings.SplitAfter(f.Patch, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			fmt.Fprint(w, p.Bold(line))
		case strings.HasPrefix(line, "+"):
			fmt.Fprint(w, p.Green(line))
		case strings.HasPrefix(line, "-"):
			fmt.Fprint(w, p.Red(line))
		case strings.HasPrefix(line, "@@"):
			fmt.Fprint(w, p.Cyan(line))
		default:
			fmt.Fprint(w, line)
		}
	}
}

// DiffStat prints counts only.
func DiffStat(w io.Writer, d *snapshot.Diff) { DiffStatWith(w, d, DiffOptions{}) }

// DiffStatWith is DiffStat as o says: by default the records that are
// not conversation and git-snap's bookkeeping are counted separately, on a
// line of their own.
func DiffStatWith(w io.Writer, d *snapshot.Diff, o DiffOptions) {
	hidden := agent.Hidden{}
	if !o.All {
		d, hidden = agent.HideNoise(d)
	}
	defer writeHidden(w, Palette{}, hidden)
	count := func(cs []snapshot.ElementChange) (a, r, c int) {
		for _, x := range cs {
			switch x.Op {
			case snapshot.OpAdded:
				a++
			case snapshot.OpRemoved:
				r++
			default:
				c++
			}
		}
		return
	}
	a, r, c := count(d.Messages)
	fmt.Fprintf(w, "messages: %d added, %d removed, %d changed\n", a, r, c)
	a, r, c = count(d.Events)
	fmt.Fprintf(w, "events:   %d added, %d removed, %d changed\n", a, r, c)
	fmt.Fprintf(w, "members:  %d changed paths\n", len(d.Members))
	for _, f := range d.Files {
		fmt.Fprintf(w, "files:    %s %s (+%d -%d)\n", f.Op, f.Path, f.Added, f.Removed)
	}
	writeTokens(w, d.Tokens)
}

// Summary is one line about a message or event: its role, id, and the
// start of its text and tool calls.
func Summary(v any) string {
	m := agent.ViewMessage(v)
	var parts []string
	for _, p := range m.Parts {
		switch p.Kind {
		case snapshot.PartText:
			parts = append(parts, fmt.Sprintf("%q", Shorten(p.Text, 60)))
		case snapshot.PartToolCall:
			parts = append(parts, "→ "+p.Tool)
		case snapshot.PartToolResult:
			parts = append(parts, "← result")
		case snapshot.PartThinking:
			parts = append(parts, "(thinking)")
		}
	}
	head := m.Role
	if m.ID != "" {
		head += " " + m.ID
	}
	if len(parts) == 0 {
		return strings.TrimSpace(head + " " + Compact(v))
	}
	return strings.TrimSpace(head + ": " + strings.Join(parts, " "))
}

// Compact is a JSON value on one line, shortened to 80 characters.
func Compact(v any) string {
	b, err := snapshot.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return Shorten(string(b), 80)
}

// Trace prints a session's timeline, one line per event, then its
// statistics and cost.
func Trace(w io.Writer, p Palette, lines []agent.TraceLine, st agent.TraceStats, cost prices.Cost) {
	for _, l := range lines {
		detail := l.Detail
		if l.OK != nil {
			detail += map[bool]string{true: " " + p.Green("ok"), false: " " + p.Red("failed")}[*l.OK]
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-12s %-10s %s", l.Time, l.Kind, detail), " "))
	}
	fmt.Fprintf(w, "\nevents %d, model calls %d, tool calls %d (%d failed), turns %d, compactions %d\n",
		st.Events, st.ModelCalls, st.ToolCalls, st.ToolFailures, st.Turns, st.Compactions)
	fmt.Fprintf(w, "tokens: %d input, %d cache read, %d cache write, %d output; duration %s\n",
		st.InputTokens, st.CacheReadTokens, st.CacheWriteTokens, st.OutputTokens, st.Duration.Round(time.Second))
	fmt.Fprintf(w, "cost: %s\n", CostText(&cost))
}
