package report

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/prices"
)

// PR is what WritePR writes: the sessions behind a range of commits, as
// one comment on a pull request.
type PR struct {
	Range    string // the range as named: "main..HEAD"
	Commits  int    // how many commits it holds
	Sessions []PRSession
	// Lines count who wrote the lines the range added that its last
	// commit holds; nil when they were not counted.
	Lines *PRLines
}

// PRLines are a range's lines by who wrote them (git snap blame's kinds).
type PRLines struct {
	Lines, Agent, Mixed, Person, Unknown int
	Models                               []PRModel // the agents' lines by model, the most first
}

// PRModel is one model's lines; Share is of all the lines counted.
type PRModel struct {
	Model string // "" when not known
	Lines int
	Share float64
}

// PRSession is a session some of whose snapshots were taken at the
// range's commits.
type PRSession struct {
	// Session is read up to the newest of those snapshots.
	Session *Session
	// Commits are the range's commits they were taken at, newest first.
	Commits []string
	// Snapshots counts them.
	Snapshots int
	// By says how they link to the commits: "commit" (they name them),
	// "rewrite" (commits an amend or a rebase rewrote into them),
	// "patch-id" (commits with the same patch: a cherry-pick, a rebase
	// elsewhere, a squash merge), "lines" (it wrote lines the range
	// added).
	By string
	// Lines are the lines of the range it wrote that are still there,
	// and Models them by model.
	Lines  int
	Models []PRModel
}

// Files lists the files a session changed, sorted: the captured files
// that changed between its snapshots, and the files its editing tool
// calls name (an agent whose files were not captured still says what it
// edited).
func Files(s *Session) []string {
	seen := map[string]bool{}
	var add func(items []Item)
	add = func(items []Item) {
		for _, it := range items {
			if it.Kind == KindTool && it.Tool.Diff != "" && !it.Tool.Failed {
				for _, line := range strings.Split(it.Tool.Diff, "\n") {
					if p, ok := strings.CutPrefix(line, "+++ b/"); ok {
						seen[editedPath(it.Tool.Summary, p)] = true
					}
				}
			}
			if it.Tool != nil && it.Tool.Subagent != nil {
				add(it.Tool.Subagent.Items)
			}
			if it.Subagent != nil {
				add(it.Subagent.Items)
			}
		}
	}
	for _, t := range s.Turns {
		for _, f := range t.Files {
			seen[f.Path] = true
		}
		add(t.Items)
	}
	return slices.Sorted(func(yield func(string) bool) {
		for p := range seen {
			if !yield(p) {
				return
			}
		}
	})
}

// editedPath is the path an editing call names: the diff's header
// drops an absolute path's leading "/", which its summary (the
// file_path it was given, maybe shortened) still has.
func editedPath(summary, diffPath string) string {
	if strings.HasPrefix(summary, "/") {
		return "/" + diffPath
	}
	return diffPath
}

// commonDir is the folder every path is under, "" when they share none
// below the root: a session's files are shown relative to it.
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	dir := path.Dir(paths[0])
	for _, p := range paths[1:] {
		for dir != "." && dir != "/" && !strings.HasPrefix(p, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	if dir == "." || dir == "/" || strings.Count(strings.Trim(dir, "/"), "/") < 1 {
		return ""
	}
	return dir
}

// Prompts are a session's prompts, in order, with their turns.
func Prompts(s *Session) []Turn {
	var out []Turn
	for _, t := range s.Turns {
		if t.Prompt != "" && !t.Continued {
			out = append(out, t)
		}
	}
	return out
}

// maxFiles is how many files of a session a PR summary lists.
const maxFiles = 40

// WritePR writes the sessions behind a pull request's commits as one
// Markdown comment within o.MaxChars: a line and a table of them all,
// then per session its prompts, the files it changed, its tokens and
// cost, and the commands that fetch the whole session. Prompts are cut
// to share the room when they do not all fit, each with a line saying
// so.
func WritePR(w io.Writer, pr PR, o SizedOptions) error {
	if o.MaxChars < MinMaxChars {
		return &SizeError{o.MaxChars}
	}
	z := &sizer{max: o.MaxChars}
	z.cur = &turnCuts{}
	var calls, failed int
	var tokens int64
	var micros int64
	priced := true
	for _, ps := range pr.Sessions {
		n := ps.Session.Numbers
		calls += n.ToolCalls
		failed += n.ToolFailures
		tokens += n.InputTokens + n.CacheReadTokens + n.CacheWriteTokens + n.OutputTokens
		if n.Cost != nil {
			micros += n.Cost.Micros
			priced = priced && len(n.Cost.Unknown) == 0
		}
	}
	linked := map[string]bool{}
	for _, ps := range pr.Sessions {
		for _, c := range ps.Commits {
			linked[c] = true
		}
	}
	z.req("## Agent sessions behind " + mdInline(pr.Range))
	cost := "≈ " + prices.MicrosText(micros) + " at list prices (an estimate, not a bill)"
	switch {
	case !priced && micros == 0:
		cost = "cost unknown (no price for the models)"
	case !priced:
		cost += "; some models have no price"
	}
	z.req(fmt.Sprintf("%s took snapshots at %d of %s of %s: %s, %s, %s tokens, %s.",
		countOf(len(pr.Sessions), "session"), len(linked), countOf(pr.Commits, "commit"), codeSpan(pr.Range),
		countOf(promptsOf(pr), "prompt"), callsText(calls, failed), thousands(tokens), cost))
	if pr.Lines != nil && pr.Lines.Lines > 0 {
		z.req(linesText(pr.Lines))
	}
	table := []string{"| session | agent | commits | prompts | tool calls | tokens | cost |", "|---|---|---|---|---|---|---|"}
	if pr.Lines != nil {
		table = []string{"| session | agent | commits | prompts | tool calls | tokens | cost | lines |", "|---|---|---|---|---|---|---|---|"}
	}
	for _, ps := range pr.Sessions {
		s := ps.Session
		n := s.Numbers
		row := fmt.Sprintf("| %s | %s | %d | %d | %s | %s | %s |", mdInline(s.Name), noMentions(mdInline(or(s.Agent, "unknown"))),
			len(ps.Commits), len(Prompts(s)), callsText(n.ToolCalls, n.ToolFailures), thousands(n.InputTokens+n.CacheReadTokens+n.CacheWriteTokens+n.OutputTokens), mdInline(shortCost(s)))
		if pr.Lines != nil {
			// The count links to the session's part of the comment.
			row += fmt.Sprintf(" [%s](#%s) |", thousands(int64(ps.Lines)), headingAnchor(s.Name))
		}
		table = append(table, row)
	}
	z.req(strings.Join(table, "\n"))
	for _, ps := range pr.Sessions {
		z.prSession(ps)
	}
	room := o.MaxChars - z.requiredLen() + z.notesLen() - 64
	doc := ""
	for range 8 {
		z.choose(room)
		if doc = z.render(); len(doc) <= o.MaxChars {
			break
		}
		room -= len(doc) - o.MaxChars + 64
	}
	if len(doc) > o.MaxChars {
		doc = hardCut(doc, o.MaxChars, "git snap export --format html gives each session whole")
	}
	_, err := io.WriteString(w, doc)
	return err
}

// prSession adds one session of a PR summary: what it is, its prompts
// (cut as room allows), the files it changed, how to get it whole.
func (z *sizer) prSession(ps PRSession) {
	s := ps.Session
	z.req("### " + mdInline(s.Name))
	var about []string
	about = append(about, or(s.Agent, "unknown agent"))
	if len(s.Models) > 0 {
		about = append(about, strings.Join(s.Models, ", "))
	}
	if !s.First.IsZero() {
		about = append(about, fmt.Sprintf("%s to %s (%s)", s.First.UTC().Format("2006-01-02 15:04"), s.Last.UTC().Format("15:04 UTC"),
			s.Last.Sub(s.First).Round(time.Minute)))
	}
	about = append(about, fmt.Sprintf("snapshot %s (#%d)", short(s.Snapshot), s.Seq))
	var commits []string
	for _, c := range ps.Commits {
		commits = append(commits, codeSpan(short(c)))
	}
	via := map[string]string{"rewrite": " (taken before a rebase or an amend rewrote them)", "patch-id": " (by their patches: taken at commits cherry-picked, rebased or squashed into them)",
		"lines": " (by the lines it wrote: commits cherry-picked, rebased or squashed from its own)"}[ps.By]
	z.req(noMentions(mdInline(strings.Join(about, " · "))) + "  \n" + fmt.Sprintf("%s at %s %s%s; %s, %s tokens, cost %s.",
		countOf(ps.Snapshots, "snapshot"), map[bool]string{true: "commit", false: "commits"}[len(commits) == 1], strings.Join(commits, ", "), via,
		callsText(s.Numbers.ToolCalls, s.Numbers.ToolFailures), thousands(s.Numbers.InputTokens+s.Numbers.CacheReadTokens+s.Numbers.CacheWriteTokens+s.Numbers.OutputTokens), mdInline(costText(s))))
	if ps.Lines > 0 {
		z.req(fmt.Sprintf("**Lines** it wrote that the range adds: %s%s.", thousands(int64(ps.Lines)), modelsText(ps.Models, false)))
	}
	prompts := Prompts(s)
	if len(prompts) == 0 {
		z.req("*No prompt in this session.*")
	}
	for _, t := range prompts {
		title := fmt.Sprintf("**Prompt %d**", t.N)
		if at, err := time.Parse(time.RFC3339Nano, t.Time); err == nil {
			title += " · " + at.UTC().Format("2006-01-02 15:04 UTC")
		}
		z.req(title)
		text := noMentions(mdText(t.Prompt))
		z.opt(prioLast, "prompt", quote(text), func(n int) string {
			for m := n; m > 0; m = m * 3 / 4 {
				if c := cutMarkdown(text, m, "of this prompt"); c != "" && len(quote(c)) <= n {
					return quote(c)
				}
			}
			return quote("*\\[a prompt of " + thousands(int64(len(text))) + " characters, cut\\]*")
		})
	}
	if files := Files(s); len(files) > 0 {
		dir := commonDir(files)
		var names []string
		for _, f := range files[:min(len(files), maxFiles)] {
			if dir != "" {
				f = strings.TrimPrefix(f, dir+"/")
			}
			names = append(names, codeSpan(f))
		}
		count := fmt.Sprint(len(files))
		if dir != "" {
			count += ", under " + codeSpan(dir+"/")
		}
		line := fmt.Sprintf("**Files changed** (%s): %s", count, strings.Join(names, ", "))
		if len(files) > maxFiles {
			line += fmt.Sprintf(" and %d more", len(files)-maxFiles)
		}
		z.req(line)
	}
	name := s.Name
	z.req(fmt.Sprintf("**The whole session:** %s, then %s (one page) or %s.", codeSpan("git snap pull origin "+name),
		codeSpan("git snap export --format html -o "+path.Base(name)+".html "+name), codeSpan("git snap show "+name)))
}

// linesText says who wrote a range's lines: agents, by model, and people.
func linesText(l *PRLines) string {
	agents := l.Agent + l.Mixed
	parts := []string{fmt.Sprintf("%s by agents%s", thousands(int64(agents)), modelsText(l.Models, true))}
	if l.Mixed > 0 {
		parts = append(parts, fmt.Sprintf("%s of them re-spaced by people", thousands(int64(l.Mixed))))
	}
	parts = append(parts, fmt.Sprintf("%s by people", thousands(int64(l.Person))))
	if l.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("%s unknown", thousands(int64(l.Unknown))))
	}
	return fmt.Sprintf("**Lines added** that the range's last commit holds: %s: %s.", thousands(int64(l.Lines)), strings.Join(parts, ", "))
}

// modelsText lists the models with their lines, or their share of all
// the lines, in parentheses; "" for none.
func modelsText(ms []PRModel, share bool) string {
	var parts []string
	for _, m := range ms {
		v := thousands(int64(m.Lines))
		if share {
			v = fmt.Sprintf("%.0f%%", 100*m.Share)
		}
		parts = append(parts, noMentions(mdInline(or(m.Model, "model unknown")))+" "+v)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// headingAnchor is the anchor GitHub gives a heading of text: lower
// case, spaces as hyphens, other punctuation but hyphens and
// underscores left out.
func headingAnchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func promptsOf(pr PR) int {
	n := 0
	for _, ps := range pr.Sessions {
		n += len(Prompts(ps.Session))
	}
	return n
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%s %ss", thousands(int64(n)), what)
}

func callsText(calls, failed int) string {
	s := countOf(calls, "tool call")
	if failed > 0 {
		s += fmt.Sprintf(" (%d failed)", failed)
	}
	return s
}

// shortCost is a session's cost for a table cell.
func shortCost(s *Session) string {
	c := s.Numbers.Cost
	switch {
	case c == nil:
		return "-"
	case c.USD == 0 && len(c.Unknown) > 0:
		return "unknown"
	}
	return "≈ " + prices.MicrosText(c.Micros)
}

// noMentions keeps Markdown from mentioning anyone where a forge reads
// it (a PR comment): an @ that starts a name (@user, @org/team, @all)
// gets a zero-width joiner after it outside code, so a prompt that
// names people pings no one when the summary is posted. Code spans and
// fenced blocks mention no one, and are left as they are.
func noMentions(md string) string {
	if !strings.Contains(md, "@") {
		return md
	}
	lines := strings.Split(md, "\n")
	fence := ""
	for i, line := range lines {
		body := strings.TrimLeft(line, "> \t")
		switch {
		case fence != "":
			if t := strings.TrimSpace(body); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		case fenceOpen().MatchString(body):
			fence = fenceOpen().FindStringSubmatch(body)[1]
			continue
		}
		lines[i] = mentionsOutsideCode(line)
	}
	return strings.Join(lines, "\n")
}

// atEntity matches the entities Markdown reads as an @ (&#64;, &#x40;,
// &commat;): the forge sees the @ they make.
var atEntity = lazy.Regexp(`(?i)&(?:#0*64|#x0*40|commat);`)

// mentionsOutsideCode is noMentions of one line that is not in a fence.
func mentionsOutsideCode(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if c := line[i]; c == '&' {
			if m := atEntity().FindStringIndex(line[i:]); m != nil && m[0] == 0 {
				b.WriteString("@\u200d") // the @ the entity made, and what stops it
				i += m[1]
				continue
			}
		}
		switch c := line[i]; {
		case c == '`':
			n := runAt(line, i)
			end := closingRun(line, i+n, n)
			if end < 0 {
				end = i + n
			}
			b.WriteString(line[i:end])
			i = end
			continue
		case c == '@' && i+1 < len(line) && isNameByte(line[i+1]) && (i == 0 || !isNameByte(line[i-1]) && !strings.ContainsRune("_.+-@/", rune(line[i-1]))):
			b.WriteString("@\u200d")
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
