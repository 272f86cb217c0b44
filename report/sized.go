package report

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/git-snap/git-snap/snapshot"
)

// PRMaxChars is GitHub's limit on the body of a pull request, an issue
// or a comment: 65,536 characters.
const PRMaxChars = 65536

// MinMaxChars is the smallest bound WriteMarkdownSized takes: room for a
// header, a note of what was cut and a few prompts.
const MinMaxChars = 4096

// SizeError is a bound too small to write a session in: the caller's
// input is wrong.
type SizeError struct{ Max int }

// Error says what the smallest bound is.
func (e *SizeError) Error() string {
	return fmt.Sprintf("%d characters is too few for a session: give at least %d", e.Max, MinMaxChars)
}

// UserError marks it as the caller's mistake (exit status 2).
func (e *SizeError) UserError() {}

// SizedOptions choose how WriteMarkdownSized fits a session in a bound.
type SizedOptions struct {
	// MaxChars bounds the document, counted in bytes of UTF-8, which no
	// count of characters (code points, UTF-16 units) exceeds.
	MaxChars int
	// Whole is one line of Markdown saying how to get the whole session,
	// written where something was cut; "" names git-snap's commands for
	// the session.
	Whole string
}

// What a sized document cuts first, last: the lower, the longer kept.
const (
	prioFailure  = iota // a failed tool call's output
	prioLast            // each turn's last answer: where the turn ended up
	prioDiff            // a file the turn changed, as a diff
	prioAnswer          // the other answers
	prioSubagent        // what a subagent said
	prioCount
)

// piece is a block of a sized document: required text, a choice between
// a block in full, cut, or left out, or the note of what a turn lost.
type piece struct {
	text string
	opt  *optional
	note *turnCuts // the note closing a turn, written once the cuts are known
}

// optional is a block kept whole, cut or left out as room allows.
type optional struct {
	prio   int
	kind   string // what it is, for the note: "answer", "diff", "output"
	full   string
	cut    func(n int) string // the block in at most n bytes with a line saying what was cut; "" when none fits
	chosen string
}

// turnCuts is what a turn leaves out: blocks never written in a sized
// document (thinking, context, tool calls' inputs and outputs) and the
// optional blocks as chosen.
type turnCuts struct {
	turn      *Turn
	thinking  int
	context   int
	inputs    int // tool calls whose input is not shown: all of them
	outputs   int // tool calls that went well, whose output is never shown
	opts      []*optional
	collapsed int // tool calls counted in a line of their own, not listed
	promptCut bool
}

// WriteMarkdownSized writes the session as WriteMarkdown does when that
// fits in o.MaxChars; else a shorter document that does: the header,
// every prompt, each tool call as one line (tool, target, ok or failed),
// the outputs of failed calls, each turn's answers and the diffs of the
// files it changed as far as room allows, the rest cut, with a line in
// each turn saying what was cut and, after the header, how to get the
// whole session. Cuts fall between blocks or lines, never inside a code
// fence or an HTML element: the document renders as GitHub Flavored
// Markdown.
func WriteMarkdownSized(w io.Writer, s *Session, o SizedOptions) error {
	if o.MaxChars < MinMaxChars {
		return &SizeError{o.MaxChars}
	}
	// Cuts weigh every turn against the others: a Session from Open is
	// read whole first.
	if err := s.readTurns(context.Background()); err != nil {
		return err
	}
	var full bytes.Buffer
	if err := WriteMarkdown(context.Background(), &full, s); err != nil {
		return err
	}
	if full.Len() <= o.MaxChars {
		_, err := w.Write(full.Bytes())
		return err
	}
	whole := o.Whole
	if whole == "" {
		whole = wholeSession(s)
	}
	// Ever shorter skeletons until one leaves room: tool calls that went
	// well counted by the run, prompts cut.
	var doc string
	for level := 0; level < 4; level++ {
		sz := &sizer{s: s, whole: whole, total: full.Len(), collapse: level >= 1, collapseFailed: level >= 3,
			promptCap: map[bool]int{true: o.MaxChars / (4 * max(1, len(s.Turns)))}[level >= 2]}
		sz.build()
		if doc = sz.fit(o.MaxChars); len(doc) <= o.MaxChars {
			break
		}
	}
	if len(doc) > o.MaxChars {
		doc = hardCut(doc, o.MaxChars, whole)
	}
	_, err := io.WriteString(w, doc)
	return err
}

// wholeSession says how to get what a sized document of s leaves out.
func wholeSession(s *Session) string {
	rev := s.Name
	page := "git snap export --format html -o " + s.Name + ".html " + rev
	if s.From != "" {
		page = "git snap export --format html -o " + s.Name + ".html --range " + short(s.From) + ".." + short(s.Snapshot)
	}
	return fmt.Sprintf("the whole session is one page with %s, in the terminal with %s; %s hands it on",
		codeSpan(page), codeSpan("git snap show "+rev), codeSpan("git snap export --bundle "+s.Name+".bundle "+s.Name))
}

// codeSpan writes s as inline code, whatever backticks it holds.
func codeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// sizer builds a sized document: required pieces and optional ones.
type sizer struct {
	s        *Session
	whole    string
	total    int // the length of the whole document
	collapse bool
	// collapseFailed counts failed calls by the run too: the last resort
	// before cutting whole turns.
	collapseFailed bool
	promptCap      int // > 0: prompts longer are cut to this
	max            int // the bound
	pieces         []piece
	turns          []*turnCuts
	cur            *turnCuts
}

func (z *sizer) req(text string) {
	z.pieces = append(z.pieces, piece{text: strings.TrimRight(text, "\n") + "\n\n"})
}

func (z *sizer) opt(prio int, kind, full string, cut func(int) string) {
	o := &optional{prio: prio, kind: kind, full: strings.TrimRight(full, "\n") + "\n\n", cut: cut}
	z.cur.opts = append(z.cur.opts, o)
	z.pieces = append(z.pieces, piece{opt: o})
}

// build lays out the document as pieces: the header, then each turn,
// with what may be cut as optional blocks for fit to choose among.
func (z *sizer) build() {
	var hdr bytes.Buffer
	md := &mdWriter{w: bufio.NewWriter(&hdr)}
	md.header(z.s)
	md.w.Flush()
	z.req(hdr.String())
	z.pieces = append(z.pieces, piece{}) // the note of what was cut, once known
	for i := range z.s.Turns {
		z.turn(&z.s.Turns[i])
	}
	if len(z.s.Turns) == 0 {
		z.req("*Nothing happened in this range.*")
	}
	if note := notShown(z.s); note != "" {
		z.req("*" + mdInline(note) + "*")
	}
}

// turn adds a turn's pieces: its title, prompt, items and changed files,
// closed by the note of what it lost.
func (z *sizer) turn(t *Turn) {
	z.cur = &turnCuts{turn: t}
	z.turns = append(z.turns, z.cur)
	z.req("## " + mdInline(turnTitle(t)))
	if t.Prompt != "" {
		z.req(quote(z.prompt(t.Prompt)))
	}
	z.items(t.Items, lastAnswer(t.Items), false)
	if len(t.Files) > 0 {
		z.files(t.Files)
	}
	z.pieces = append(z.pieces, piece{note: z.cur})
}

// prompt is a prompt as Markdown, cut to promptCap when that is set: a
// prompt is required text, so on the tighter levels it must shrink
// itself rather than be chosen away.
func (z *sizer) prompt(prompt string) string {
	p := mdText(prompt)
	if z.promptCap <= 0 || len(p) <= z.promptCap {
		return p
	}
	z.cur.promptCut = true
	if c := cutMarkdown(p, z.promptCap, "of this prompt"); c != "" {
		return c
	}
	// One long line: its start (a paragraph's, in a quote that ends after it).
	first, _, _ := strings.Cut(p, "\n")
	kept := truncBytes(first, z.promptCap)
	if fenceOpen().MatchString(first) {
		kept = "" // a fence's opening: nothing of it
	}
	return fmt.Sprintf("%s\n\n*\\[… %s more characters of this prompt cut\\]*", kept, thousands(int64(len(p)-len(kept))))
}

// lastAnswer is the index of the last answer among items, -1 when there
// is none: where a turn ended up, kept longest.
func lastAnswer(items []Item) int {
	last := -1
	for j := range items {
		if items[j].Kind == KindText {
			last = j
		}
	}
	return last
}

// files adds the list of a turn's changed files, always kept, and each
// one's diff as an optional block.
func (z *sizer) files(files []snapshot.FileChange) {
	z.req("### Files changed")
	var list []string
	for _, f := range files {
		list = append(list, "- "+mdInline(fileSummary(f)))
	}
	z.req(strings.Join(list, "\n"))
	for _, f := range files {
		if f.Patch == "" {
			continue
		}
		open := fmt.Sprintf("<details class=\"file-diff\">\n<summary>%s</summary>\n\n", html.EscapeString(fileSummary(f)))
		z.optDetails(prioDiff, "diff", open, "diff", f.Patch, "of this diff")
	}
}

// optDetails adds an optional block of text fenced as lang inside a
// <details> element opened by open. A cut keeps the element whole and
// cuts only the fenced text, so the document still renders.
func (z *sizer) optDetails(prio int, kind, open, lang, text, what string) {
	const closing = "\n\n</details>"
	z.opt(prio, kind, open+fenced(lang, text)+closing, func(n int) string {
		body := cutFenced(lang, text, n-len(open)-len(closing), what)
		if body == "" {
			return ""
		}
		return open + body + closing
	})
}

// callList gathers the lines of a list of tool calls, which become one
// required piece when something else comes between calls. When the
// sizer collapses, the calls of a run are held back to be counted in a
// line of their own.
type callList struct {
	z       *sizer
	calls   []string // the list being written
	okRun   []string // tool calls counted by the run, when collapsed: names
	okLines []string // and their lines, written as they are when the run is one call
}

// endRun writes the run held back: a single call as its own line, more
// as one line counting them by tool.
func (cl *callList) endRun() {
	if len(cl.okRun) <= 1 {
		cl.calls = append(cl.calls, cl.okLines...)
	} else {
		cl.calls = append(cl.calls, runLine(cl.okRun))
		cl.z.cur.collapsed += len(cl.okRun)
	}
	cl.okRun, cl.okLines = nil, nil
}

// flush ends the list: what comes next is a block of its own.
func (cl *callList) flush() {
	cl.endRun()
	if len(cl.calls) > 0 {
		cl.z.req(strings.Join(cl.calls, "\n"))
		cl.calls = nil
	}
}

// runLine is a run of tool calls as one line of a list: how many, and
// how many of each tool in the order they first came; ✗ when one of
// them failed.
func runLine(run []string) string {
	counts := map[string]int{}
	var names []string
	for _, n := range run {
		if counts[n] == 0 {
			names = append(names, n)
		}
		counts[n]++
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d", n, counts[n]))
	}
	mark := "✓"
	for _, n := range run {
		if strings.HasSuffix(n, " (failed)") {
			mark = "✗"
		}
	}
	return "- " + mark + " " + mdInline(fmt.Sprintf("%d calls: %s", len(run), strings.Join(parts, ", ")))
}

// items adds a turn's (or a subagent's) items: tool calls as lines,
// failed calls' outputs, answers, markers.
func (z *sizer) items(items []Item, last int, sub bool) {
	cl := &callList{z: z}
	for j := range items {
		it := &items[j]
		switch it.Kind {
		case KindText:
			cl.flush()
			text := mdText(it.Text)
			z.opt(answerPrio(sub, j == last), "answer", text, func(n int) string { return cutMarkdown(text, n, "of this answer") })
		case KindThinking:
			z.cur.thinking++
		case KindContext:
			z.cur.context++
		case KindTool, KindResult:
			z.toolCall(cl, it)
		case KindSubagent:
			cl.flush()
			z.subagent(it.Subagent)
		case KindCompaction:
			cl.flush()
			z.req("*— the conversation was compacted here —*")
		case KindCheckpoint:
			cl.flush()
			z.req(fmt.Sprintf("**⚑ checkpoint %s**", mdInline(it.Text)))
		}
	}
	cl.flush()
}

// answerPrio is how long an answer is kept: a subagent's goes first, a
// turn's last answer (where it ended up) last.
func answerPrio(sub, last bool) int {
	switch {
	case sub:
		return prioSubagent
	case last:
		return prioLast
	}
	return prioAnswer
}

// toolCall adds a tool call (or a result of one from before the range)
// to the list: a failed call's line and output stay in view unless even
// failed calls are collapsed; a subagent the call ran follows it.
func (z *sizer) toolCall(cl *callList, it *Item) {
	c := it.Tool
	if it.Kind == KindTool {
		z.cur.inputs++
	}
	line := toolLine(it)
	switch {
	case c.Failed && !z.collapseFailed:
		cl.endRun()
		cl.calls = append(cl.calls, line)
	case z.collapse:
		cl.okRun = append(cl.okRun, or(c.Name, "tool")+map[bool]string{true: " (failed)"}[c.Failed])
		cl.okLines = append(cl.okLines, line)
	default:
		cl.calls = append(cl.calls, line)
	}
	if !c.Failed {
		z.cur.outputs++
	}
	if c.Failed && c.HasResult && !z.collapseFailed {
		cl.flush()
		open := fmt.Sprintf("<details class=\"%s\" id=\"%s\">\n<summary>%s</summary>\n\n", toolClass(it), it.ID, html.EscapeString("output of "+toolSummary(it)))
		z.optDetails(prioFailure, "output", open, "text", c.Result, "of this output")
	}
	if c.Subagent != nil {
		cl.flush()
		z.subagent(c.Subagent)
	}
}

func (z *sizer) subagent(s *Subagent) {
	z.req(fmt.Sprintf("**%s**", mdInline(fmt.Sprintf("subagent %s · %d entries, %d tool calls:", oneLine(s.Name, 80), len(s.Items), s.ToolCalls()))))
	z.items(s.Items, -1, true)
	z.req(fmt.Sprintf("*%s*", mdInline("end of subagent "+oneLine(s.Name, 80))))
}

// toolLine is a tool call as one line of a list: ✓ or ✗, the tool and
// what it was about.
func toolLine(it *Item) string {
	c := it.Tool
	what := or(c.Name, "tool")
	if c.Summary != "" {
		what += ": " + c.Summary
	}
	if it.Kind == KindResult {
		what = "result of a call before this range"
	}
	what = mdInline(oneLine(what, 120))
	switch {
	case c.Failed:
		return "- ✗ **failed** · " + what
	case !c.HasResult:
		return "- · " + what + " *(no result recorded)*"
	}
	return "- ✓ " + what
}

// fit chooses how much of each optional block to keep so that the
// document is at most max bytes, and writes it.
func (z *sizer) fit(max int) string {
	z.max = max
	room := max - z.requiredLen()
	best := ""
	for range 8 {
		z.choose(room)
		doc := z.render()
		switch {
		case len(doc) <= max && (len(doc) <= len(best) || max-len(doc) < 256):
			if len(doc) > len(best) {
				best = doc
			}
			return best
		case len(doc) <= max:
			// The notes were guessed long: give what is left to the blocks.
			best = doc
			room += max - len(doc) - 64
		case room <= 0:
			return or(best, doc)
		default:
			room -= len(doc) - max + 64
		}
	}
	if best != "" {
		return best
	}
	z.choose(0)
	return z.render()
}

// requiredLen is the length of the required pieces, notes as if empty.
func (z *sizer) requiredLen() int {
	n := 0
	for _, p := range z.pieces {
		n += len(p.text)
	}
	return n + z.notesLen()
}

// notesLen guesses the length of the notes: the first one, and a line
// per turn.
func (z *sizer) notesLen() int { return 600 + len(z.whole) + 260*len(z.turns) }

// choose keeps optional blocks by priority, within a priority sharing
// the room evenly: a block smaller than its share is kept whole, a
// larger one is cut to its share.
func (z *sizer) choose(room int) {
	byPrio := make([][]*optional, prioCount)
	for _, p := range z.pieces {
		if p.opt != nil {
			p.opt.chosen = ""
			byPrio[p.opt.prio] = append(byPrio[p.opt.prio], p.opt)
		}
	}
	// A single failure or diff takes at most a fixed part of the whole.
	capOf := func(o *optional) int {
		if o.prio == prioFailure || o.prio == prioDiff {
			return max(MinMaxChars, z.max/16)
		}
		return room
	}
	for _, group := range byPrio {
		group = slices.Clone(group)
		slices.SortStableFunc(group, func(a, b *optional) int { return len(a.full) - len(b.full) })
		for i, o := range group {
			if room <= 0 {
				break
			}
			share := min(room/(len(group)-i), capOf(o))
			switch {
			case len(o.full) <= share:
				o.chosen = o.full
			default:
				if c := o.cut(share); c != "" && len(c) <= share {
					o.chosen = strings.TrimRight(c, "\n") + "\n\n"
				}
			}
			room -= len(o.chosen)
		}
	}
}

// render writes the pieces as chosen, with the notes.
func (z *sizer) render() string {
	var b strings.Builder
	for _, p := range z.pieces {
		switch {
		case p.opt != nil:
			b.WriteString(p.opt.chosen)
		case p.note != nil:
			if n := p.note.text(); n != "" {
				b.WriteString(n + "\n\n")
			}
		case p.text == "":
			b.WriteString(z.firstNote() + "\n\n")
		default:
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// firstNote says, after the header, what kind of document this is and
// how to get the whole session.
func (z *sizer) firstNote() string {
	kept := 0
	for _, p := range z.pieces {
		if p.opt != nil {
			kept += len(p.opt.chosen)
		} else {
			kept += len(p.text)
		}
	}
	prompts := "every prompt"
	if z.promptCap > 0 {
		prompts = "every prompt (the long ones cut)"
	}
	return fmt.Sprintf("*A summary cut to size: %s, each tool call on one line, failures and answers as room allows; about %s of the %s characters of the whole document are left out. Each turn ends with what it lost. %s.*",
		prompts, thousands(int64(max(0, z.total-kept))), thousands(int64(z.total)), upperFirst(z.whole))
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

// text is the line closing a turn that says what it lost, "" when
// nothing was.
func (c *turnCuts) text() string {
	var parts []string
	count := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf(many, n))
		}
	}
	if c.promptCut {
		parts = append(parts, "the rest of its prompt")
	}
	kinds := map[string][2]int{} // kind → cut in part, left out
	totals := map[string]int{}
	for _, o := range c.opts {
		k := kinds[o.kind]
		switch {
		case o.chosen == "":
			k[1]++
		case o.chosen != o.full:
			k[0]++
		}
		kinds[o.kind] = k
		totals[o.kind]++
	}
	for _, kind := range []string{"answer", "output", "diff"} {
		k := kinds[kind]
		if k[0]+k[1] == 0 {
			continue
		}
		label := map[string]string{"answer": "answers", "output": "failures' outputs", "diff": "diffs"}[kind]
		switch {
		case k[0] > 0 && k[1] > 0:
			parts = append(parts, fmt.Sprintf("%d of %d %s cut short and %d left out", k[0], totals[kind], label, k[1]))
		case k[0] > 0:
			parts = append(parts, fmt.Sprintf("%d of %d %s cut short", k[0], totals[kind], label))
		default:
			parts = append(parts, fmt.Sprintf("%d of %d %s", k[1], totals[kind], label))
		}
	}
	count(c.thinking, "a thinking block", "%d thinking blocks")
	count(c.context, "a text the harness gave", "%d texts the harness gave")
	if c.inputs > 0 {
		parts = append(parts, fmt.Sprintf("the inputs of %d tool calls", c.inputs))
	}
	if c.outputs > 0 {
		parts = append(parts, fmt.Sprintf("the outputs of %d that went well", c.outputs))
	}
	if c.collapsed > 0 {
		parts = append(parts, fmt.Sprintf("the targets of %d calls that went well", c.collapsed))
	}
	if len(parts) == 0 {
		return ""
	}
	title := fmt.Sprintf("turn %d", c.turn.N)
	if c.turn.N == 0 {
		title = "the records before the first prompt"
	}
	return fmt.Sprintf("*Left out of %s: %s. The whole turn is section %s of the HTML export.*", title, strings.Join(parts, "; "), codeSpan("#"+c.turn.ID))
}

// cutMarkdown keeps the start of Markdown (as mdText writes it) that
// fits in n bytes with a line saying what was cut. It cuts between
// blocks where it can, else between lines, never inside a code fence;
// "" when not even a line fits.
func cutMarkdown(md string, n int, what string) string {
	note := func(rest int) string {
		return fmt.Sprintf("\n\n*\\[… %s more characters %s cut\\]*", thousands(int64(rest)), what)
	}
	limit := n - len(note(len(md)))
	if limit <= 0 {
		return ""
	}
	best, bestBlock := -1, -1
	fence := ""
	off := 0
	for _, line := range strings.SplitAfter(md, "\n") {
		end := off + len(line)
		body := strings.TrimRight(line, "\n")
		if fence != "" {
			if t := strings.TrimSpace(body); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" && len(body)-len(strings.TrimLeft(body, " ")) <= 3 {
				fence = ""
			}
		} else if f := fenceOpen().FindStringSubmatch(body); f != nil && (f[1][0] != '`' || !strings.Contains(body[len(f[0]):], "`")) {
			fence = f[1]
		}
		if end > limit {
			break
		}
		if fence == "" {
			best = end
			if strings.TrimSpace(body) == "" {
				bestBlock = off
			}
		}
		off = end
	}
	cut := best
	if bestBlock > 0 && bestBlock >= best/2 {
		cut = bestBlock
	}
	if cut <= 0 {
		return ""
	}
	kept := strings.TrimRight(md[:cut], "\n")
	if strings.TrimSpace(kept) == "" {
		return ""
	}
	return kept + note(len(md)-len(kept))
}

// cutFenced writes text in code fences in at most n bytes: its first
// lines and its last, with a line between saying how many were cut; ""
// when not even a few lines fit.
func cutFenced(lang, text string, n int, what string) string {
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	note := func(cut int) string {
		return fmt.Sprintf("\n\n*\\[… %s of %s lines %s cut\\]*\n\n", thousands(int64(cut)), thousands(int64(len(lines))), what)
	}
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	room := n - 2*(2*len(fence)+len(lang)+2) - len(note(len(lines)))
	if room < 80 {
		return ""
	}
	head := takeLines(lines, room*2/3, false)
	rest := lines[len(head):]
	if len(head) == 0 { // a first line longer than the room: its start
		head, rest = []string{truncBytes(lines[0], room*2/3)}, lines[1:]
	}
	tail := takeLines(rest, room-len(strings.Join(head, "\n"))-1, true)
	cut := len(rest) - len(tail)
	var b strings.Builder
	b.WriteString(fenced(lang, strings.Join(head, "\n")))
	if cut > 0 || head[len(head)-1] != lines[len(head)-1] {
		b.WriteString(strings.TrimRight(note(max(cut, 1)), "\n"))
	}
	if len(tail) > 0 {
		b.WriteString("\n\n" + fenced(lang, strings.Join(tail, "\n")))
	}
	return b.String()
}

// takeLines takes whole lines, from the start (or the end) of lines,
// that fit in n bytes joined.
func takeLines(lines []string, n int, fromEnd bool) []string {
	used, k := 0, 0
	for k < len(lines) {
		l := lines[k]
		if fromEnd {
			l = lines[len(lines)-1-k]
		}
		if used+len(l)+1 > n {
			break
		}
		used += len(l) + 1
		k++
	}
	if fromEnd {
		return lines[len(lines)-k:]
	}
	return lines[:k]
}

// truncBytes cuts s to at most n bytes on a rune boundary.
func truncBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// hardCut is the last resort for a session whose prompts and tool lines
// alone overflow: the document up to the last block boundary that fits,
// outside any fence or HTML block, and a line saying the rest was cut.
func hardCut(doc string, max int, whole string) string {
	note := fmt.Sprintf("\n\n*The rest of the session is cut: it does not fit in %s characters; %s.*\n", thousands(int64(max)), whole)
	limit := max - len(note)
	cut := 0
	fence := ""
	inHTML := false
	off := 0
	prevBlank := true
	for _, line := range strings.SplitAfter(doc, "\n") {
		body := strings.TrimRight(line, "\n")
		end := off + len(line)
		switch {
		case fence != "":
			if t := strings.TrimSpace(body); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case prevBlank && strings.HasPrefix(body, "<details"):
			inHTML = true
		case prevBlank && body == "</details>":
			inHTML = false
		default:
			if f := fenceOpen().FindStringSubmatch(body); f != nil {
				fence = f[1]
			}
		}
		if end > limit {
			break
		}
		if body == "" && fence == "" && !inHTML {
			cut = end
		}
		prevBlank = body == ""
		off = end
	}
	return strings.TrimRight(doc[:cut], "\n") + note
}
