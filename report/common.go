package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// headerRows are the header's lines, name and value, the same in
// Markdown and HTML.
func headerRows(s *Session) [][2]string {
	n := s.Numbers
	snap := fmt.Sprintf("%s (#%d)", short(s.Snapshot), s.Seq)
	if s.From != "" {
		snap = fmt.Sprintf("%s (#%d) .. %s (#%d): only what happened after the first", short(s.From), s.FromSeq, short(s.Snapshot), s.Seq)
	}
	rows := [][2]string{{"agent", or(s.Agent, "unknown")}, {"model", or(strings.Join(s.Models, ", "), "not recorded")}, {"snapshot", snap}}
	if s.Code != "" {
		code := s.Code
		if s.Dirty {
			code += " (with changes not committed)"
		}
		rows = append(rows, [2]string{"code commit", code})
	}
	rows = append(rows, [2]string{"first", timeText(s.First)}, [2]string{"last", timeText(s.Last)})
	if !s.First.IsZero() {
		rows = append(rows, [2]string{"duration", s.Last.Sub(s.First).Round(time.Second).String()})
	}
	calls := fmt.Sprintf("%d", n.ToolCalls)
	if n.ToolFailures > 0 {
		calls += fmt.Sprintf(" (%d failed)", n.ToolFailures)
	}
	est := ""
	if n.Estimated {
		est = " (some estimated from text length)"
	}
	return append(rows,
		[2]string{"turns", fmt.Sprint(n.Turns)},
		[2]string{"tool calls", calls},
		[2]string{"model calls", fmt.Sprint(n.ModelCalls)},
		[2]string{"tokens", fmt.Sprintf("input %s · cache read %s · cache write %s · output %s%s",
			thousands(n.InputTokens), thousands(n.CacheReadTokens), thousands(n.CacheWriteTokens), thousands(n.OutputTokens), est)},
		[2]string{"cost", costText(s)},
	)
}

// costText says the cost is an estimate, and names the models it could
// not price rather than guess at them.
func costText(s *Session) string {
	c := s.Numbers.Cost
	if c == nil {
		return "not estimated"
	}
	var unknown []string
	for _, m := range c.Unknown {
		unknown = append(unknown, or(m, "calls naming no model"))
	}
	if len(unknown) > 0 && c.USD == 0 {
		return fmt.Sprintf("unknown: no price for %s", strings.Join(unknown, ", "))
	}
	text := fmt.Sprintf("≈ %s, an estimate at the list prices of %s, not a bill", prices.MicrosText(c.Micros), c.PricesDate)
	if len(unknown) > 0 {
		text += fmt.Sprintf("; no price for %s, whose tokens are not included", strings.Join(unknown, ", "))
	}
	return text
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return "not recorded"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// thousands writes n with commas: token counts run to millions.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func turnTitle(t *Turn) string {
	title := fmt.Sprintf("Turn %d", t.N)
	switch {
	case t.N == 0:
		title = "Before the first prompt"
	case t.Continued:
		title += " (continued)"
	}
	if at, err := time.Parse(time.RFC3339Nano, t.Time); err == nil {
		title += " · " + at.UTC().Format("2006-01-02 15:04:05")
	}
	return title
}

func toolClass(it *Item) string {
	class := "tool-call"
	if it.Kind == KindResult {
		class = "tool-result"
	}
	switch {
	case it.Tool.Failed:
		class += " failed"
	case !it.Tool.HasResult:
		class += " no-result"
	}
	return class
}

func toolSummary(it *Item) string {
	c := it.Tool
	if it.Kind == KindResult {
		return "result of a call before this range" + map[bool]string{true: " · failed"}[c.Failed]
	}
	s := or(c.Name, "tool")
	if c.Summary != "" {
		s += ": " + c.Summary
	}
	s = oneLine(s, 120)
	if c.Failed {
		s += " · failed"
	}
	return s
}

func fileSummary(f snapshot.FileChange) string {
	s := f.Op + " " + f.Path
	if f.Binary {
		return s + " (binary)"
	}
	return s + fmt.Sprintf(" (+%d −%d)", f.Added, f.Removed)
}

// oneLine folds s onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// summaryKeys are the members of a tool's input that say best what it
// does, whatever the agent: a command, a path, a pattern, a query.
var summaryKeys = []string{"command", "cmd", "file_path", "notebook_path", "path", "pattern", "url", "query", "description", "prompt"}

// inputSummary is one line of a tool call's input.
func inputSummary(v any) string {
	if s, ok := v.(string); ok {
		parsed, err := snapshot.Parse([]byte(s), snapshot.Limits{})
		if err != nil {
			return oneLine(s, 100)
		}
		v = parsed
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for _, k := range summaryKeys {
		switch x := obj[k].(type) {
		case string:
			return oneLine(x, 100)
		case []any:
			var parts []string
			for _, e := range x {
				if s, ok := e.(string); ok {
					parts = append(parts, s)
				}
			}
			return oneLine(strings.Join(parts, " "), 100)
		}
	}
	return ""
}

// inputDiff reads the change an editing tool call asks for from the
// shape of its input, whatever the agent: old and new text of a file
// (old_string, new_string, alone or as a list of edits), a whole file's
// new content, or a patch given as text.
func inputDiff(v any) string {
	if s, ok := v.(string); ok {
		if strings.HasPrefix(strings.TrimSpace(s), "*** Begin Patch") {
			return s
		}
		return ""
	}
	obj, _ := v.(map[string]any)
	path := "file"
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if p, ok := obj[k].(string); ok && p != "" {
			path = p
			break
		}
	}
	name := strings.TrimPrefix(path, "/") // a/ and b/ as git writes them, also before an absolute path
	edits, _ := obj["edits"].([]any)
	if len(edits) == 0 {
		edits = []any{obj}
	}
	var out strings.Builder
	for _, e := range edits {
		eo, _ := e.(map[string]any)
		old, okOld := eo["old_string"].(string)
		nu, okNew := eo["new_string"].(string)
		if okOld && okNew {
			if !strings.HasSuffix(old, "\n") && !strings.HasSuffix(nu, "\n") {
				old, nu = old+"\n", nu+"\n" // a snippet: its end is no file's end
			}
			out.WriteString(snapshot.UnifiedDiff("a/"+name, "b/"+name, old, nu))
		}
	}
	if content, ok := obj["content"].(string); ok && out.Len() == 0 && path != "file" {
		out.WriteString(snapshot.UnifiedDiff("/dev/null", "b/"+name, "", content))
	}
	return out.String()
}

// diffLine is a line of a diff with its class: add, del, hunk or none.
type diffLine struct{ Class, Text string }

// diffLines splits a diff for colouring.
func diffLines(d string) []diffLine {
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	out := make([]diffLine, len(lines))
	for i, l := range lines {
		class := ""
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "***"):
			class = "head"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		}
		out[i] = diffLine{class, l + "\n"}
	}
	return out
}

// notShown says what the document leaves out: records that are not
// conversation, by kind, and a harness's lifecycle events.
func notShown(s *Session) string {
	var kinds []string
	n := 0
	for _, k := range slices.Sorted(maps.Keys(s.Other)) {
		kinds = append(kinds, fmt.Sprintf("%s ×%d", k, s.Other[k]))
		n += s.Other[k]
	}
	var parts []string
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d records that are not conversation (%s)", n, strings.Join(kinds, ", ")))
	}
	if s.Events > 0 {
		parts = append(parts, fmt.Sprintf("%d lifecycle events (git snap trace lists them)", s.Events))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Not shown: " + strings.Join(parts, "; ") + "; git snap export --format json has everything."
}
