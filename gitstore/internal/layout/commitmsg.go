package layout

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/git-snap/git-snap/snapshot"
)

// Trailer keys of a snapshot commit.
const (
	TrailerSession  = "Snap-Session"
	trailerSeq      = "Snap-Seq"
	trailerTurn     = "Snap-Turn"
	trailerLabel    = "Snap-Label"
	trailerSource   = "Snap-Source"
	trailerStarted  = "Snap-Started"
	trailerCode     = "Snap-Code"
	trailerDirty    = "Snap-Dirty"
	trailerMessages = "Snap-Messages"
	trailerEvents   = "Snap-Events"
	trailerFiles    = "Snap-Files"
	trailerRollback = "Snap-Rollback-Of"
	trailerRedacted = "Snap-Redacted"

	// The totals, written when the header is Counted.
	trailerCounted     = "Snap-Counted"
	trailerSaid        = "Snap-Conversation-Messages"
	trailerModelCalls  = "Snap-Model-Calls"
	trailerToolCalls   = "Snap-Tool-Calls"
	trailerToolFails   = "Snap-Tool-Failures"
	trailerTurns       = "Snap-Turns"
	trailerCompactions = "Snap-Compactions"
	trailerInput       = "Snap-Input-Tokens"
	trailerCacheRead   = "Snap-Cache-Read-Tokens"
	trailerCacheWrite  = "Snap-Cache-Write-Tokens"
	trailerOutput      = "Snap-Output-Tokens"
	trailerEstimated   = "Snap-Tokens-Estimated"
	trailerFirstRecord = "Snap-First-Record"
	trailerLastRecord  = "Snap-Last-Record"
	trailerModelUsage  = "Snap-Model-Usage" // one per model: "<input> <cache read> <cache write> <output> <model>"
	// Of a Snap-Model-Usage's tokens, those of one-hour cache writes:
	// "<cache write 1h> <model>", for a model that has them.
	trailerModelCache1h = "Snap-Model-Cache-1h"
	// Of a Snap-Model-Usage's tokens, those of calls whose prompt was over
	// a long-context threshold (snapshot.LongContext): "<threshold>
	// <input> <cache read> <cache write> <cache write 1h> <output> <model>".
	trailerModelLong = "Snap-Model-Long"
)

// modelCache1h and modelLong read and write the parts of the models'
// usage their trailers hold (readers that know them not still read
// Snap-Model-Usage whole).
type (
	modelCache1h struct{ p *[]snapshot.ModelUsage }
	modelLong    struct{ p *[]snapshot.ModelUsage }
)

// trailers maps the header's fields to trailers, in the order a commit
// message gives them: each is named once, so that writing and reading
// cannot disagree. An int with omitZero is left out when 0; an empty
// string, false and the zero time always are.
//
// Totals trailers are written only for a Counted header, and read only
// when Snap-Counted says so: a commit that lacks them is an older
// snapshot, whose reader counts its document.
var trailers = []struct {
	key      string
	omitZero bool
	field    func(h *snapshot.Header) any // a pointer to the field
	totals   bool                         // one of the totals
}{
	{TrailerSession, true, func(h *snapshot.Header) any { return &h.Session }, false},
	{trailerSeq, false, func(h *snapshot.Header) any { return &h.Seq }, false},
	{trailerTurn, true, func(h *snapshot.Header) any { return &h.Turn }, false},
	{trailerLabel, true, func(h *snapshot.Header) any { return &h.Label }, false},
	{trailerSource, true, func(h *snapshot.Header) any { return &h.Source }, false},
	{trailerStarted, true, func(h *snapshot.Header) any { return &h.Started }, false},
	{trailerCode, true, func(h *snapshot.Header) any { return &h.Code }, false},
	{trailerDirty, true, func(h *snapshot.Header) any { return &h.Dirty }, false},
	{trailerMessages, false, func(h *snapshot.Header) any { return &h.Messages }, false},
	{trailerEvents, false, func(h *snapshot.Header) any { return &h.Events }, false},
	{trailerFiles, false, func(h *snapshot.Header) any { return &h.Files }, false},
	{trailerRollback, true, func(h *snapshot.Header) any { return &h.RollbackOf }, false},
	{trailerRedacted, true, func(h *snapshot.Header) any { return &h.Redacted }, false},
	{trailerCounted, true, func(h *snapshot.Header) any { return &h.Counted }, false},
	{trailerSaid, true, func(h *snapshot.Header) any { return &h.Totals.Messages }, true},
	{trailerModelCalls, true, func(h *snapshot.Header) any { return &h.Totals.ModelCalls }, true},
	{trailerToolCalls, true, func(h *snapshot.Header) any { return &h.Totals.ToolCalls }, true},
	{trailerToolFails, true, func(h *snapshot.Header) any { return &h.Totals.ToolFailures }, true},
	{trailerTurns, true, func(h *snapshot.Header) any { return &h.Totals.Turns }, true},
	{trailerCompactions, true, func(h *snapshot.Header) any { return &h.Totals.Compactions }, true},
	{trailerInput, true, func(h *snapshot.Header) any { return &h.Totals.InputTokens }, true},
	{trailerCacheRead, true, func(h *snapshot.Header) any { return &h.Totals.CacheReadTokens }, true},
	{trailerCacheWrite, true, func(h *snapshot.Header) any { return &h.Totals.CacheWriteTokens }, true},
	{trailerOutput, true, func(h *snapshot.Header) any { return &h.Totals.OutputTokens }, true},
	{trailerEstimated, true, func(h *snapshot.Header) any { return &h.Totals.Estimated }, true},
	{trailerFirstRecord, true, func(h *snapshot.Header) any { return &h.Totals.First }, true},
	{trailerLastRecord, true, func(h *snapshot.Header) any { return &h.Totals.Last }, true},
	{trailerModelUsage, true, func(h *snapshot.Header) any { return &h.Totals.ByModel }, true},
	{trailerModelCache1h, true, func(h *snapshot.Header) any { return modelCache1h{&h.Totals.ByModel} }, true},
	{trailerModelLong, true, func(h *snapshot.Header) any { return modelLong{&h.Totals.ByModel} }, true},
}

// trailerIndex finds a key's place in trailers.
var trailerIndex = func() map[string]int {
	m := make(map[string]int, len(trailers))
	for i, t := range trailers {
		m[t.key] = i
	}
	return m
}()

// CommitMessage writes a header as a commit message: a subject a person
// reads in git log, then trailers a program reads back.
func CommitMessage(h snapshot.Header) string {
	var b strings.Builder
	b.WriteString(subject(h))
	b.WriteString("\n\n")
	for _, t := range trailers {
		if t.totals && !h.Counted {
			continue
		}
		for _, v := range formatTrailer(t.field(&h), t.omitZero) {
			fmt.Fprintf(&b, "%s: %s\n", t.key, oneLine(v))
		}
	}
	return b.String()
}

// CheckHeader says which trailer of h a reader would refuse (see
// ParseHeader): a writer checks before it writes, since a commit whose
// header is out of bounds is no snapshot to any reader, and its session
// would vanish from every command.
func CheckHeader(h snapshot.Header) error {
	for _, t := range trailers {
		if t.totals && !h.Counted {
			continue
		}
		for _, v := range formatTrailer(t.field(&h), t.omitZero) {
			var back snapshot.Header
			if !parseTrailer(trailers[trailerIndex[t.key]].field(&back), oneLine(v)) {
				return fmt.Errorf("%s: %s is out of what a snapshot may hold (counts 0 to %d, tokens 0 to %d, years %d to %d)",
					t.key, v, maxHeaderInt, maxHeaderTokens, minHeaderYear, maxHeaderYear)
			}
		}
	}
	if !headerTimeOK(h.Time) {
		return fmt.Errorf("time %s is out of the years a snapshot may hold (%d to %d)", h.Time.UTC().Format(time.RFC3339), minHeaderYear, maxHeaderYear)
	}
	return nil
}

// formatTrailer gives a field's trailer values: none to leave it out,
// several for a list.
func formatTrailer(field any, omitZero bool) []string {
	one := func(v string, ok bool) []string {
		if !ok {
			return nil
		}
		return []string{v}
	}
	switch f := field.(type) {
	case *string:
		return one(*f, *f != "")
	case *int:
		return one(strconv.Itoa(*f), *f != 0 || !omitZero)
	case *int64:
		return one(strconv.FormatInt(*f, 10), *f != 0 || !omitZero)
	case *bool:
		return one("true", *f)
	case *time.Time:
		return one(f.UTC().Format(time.RFC3339Nano), !f.IsZero())
	case *[]snapshot.ModelUsage:
		var out []string
		for _, m := range *f {
			out = append(out, fmt.Sprintf("%d %d %d %d %s", m.Input, m.CacheRead, m.CacheWrite, m.Output, m.Model))
		}
		return out
	case modelCache1h:
		var out []string
		for _, m := range *f.p {
			if m.CacheWrite1h != 0 {
				out = append(out, fmt.Sprintf("%d %s", m.CacheWrite1h, m.Model))
			}
		}
		return out
	case modelLong:
		var out []string
		for _, m := range *f.p {
			for i, t := range m.Long {
				if t != (snapshot.Tokens{}) {
					out = append(out, fmt.Sprintf("%d %d %d %d %d %d %s", snapshot.LongContext[i], t.Input, t.CacheRead, t.CacheWrite, t.CacheWrite1h, t.Output, m.Model))
				}
			}
		}
		return out
	}
	panic(fmt.Sprintf("trailer of a %T", field))
}

// Bounds of what a header may say. Headers come from commits anyone may
// have written (bundles, remotes, git commit by hand), so a value outside
// them makes the commit not a snapshot, rather than a number that
// overflows what is computed from it (stats, sums, sequence arithmetic).
const (
	maxHeaderInt    = 1_000_000_000     // sequence numbers, turns and counts: 0..1e9
	maxHeaderTokens = 1_000_000_000_000 // token counts: 0..1e15
	maxHeaderModels = 100               // Snap-Model-Usage trailers
	minHeaderYear   = 1970              // times: years 1970..9999
	maxHeaderYear   = 9999
)

// headerTimeOK says whether t is within the years a header may name.
func headerTimeOK(t time.Time) bool {
	y := t.UTC().Year()
	return y >= minHeaderYear && y <= maxHeaderYear
}

// parseTrailer sets a field from its trailer value, and reports false
// when the value is unreadable or out of bounds: an int that is not
// decimal digits or above maxHeaderInt, a time outside the years
// minHeaderYear..maxHeaderYear.
func parseTrailer(field any, value string) bool {
	switch f := field.(type) {
	case *string:
		*f = value
	case *int:
		n, ok := parseCount(value, maxHeaderInt)
		*f = int(n)
		return ok
	case *int64:
		n, ok := parseCount(value, maxHeaderTokens)
		*f = n
		return ok
	case *[]snapshot.ModelUsage:
		m, ok := parseModelUsage(value)
		*f = append(*f, m)
		return ok && len(*f) <= maxHeaderModels
	case modelCache1h:
		n, model, ok := parseCounts(value, 1)
		if m := findModel(*f.p, model); ok && m != nil {
			m.CacheWrite1h = n[0]
		}
		return ok
	case modelLong:
		n, model, ok := parseCounts(value, 6)
		if m := findModel(*f.p, model); ok && m != nil {
			for i, t := range snapshot.LongContext {
				if t == n[0] {
					m.Long[i] = snapshot.Tokens{Input: n[1], CacheRead: n[2], CacheWrite: n[3], CacheWrite1h: n[4], Output: n[5]}
				}
			}
		}
		return ok
	case *bool:
		*f = value == "true"
	case *time.Time:
		t, err := time.Parse(time.RFC3339Nano, value)
		if err != nil || !headerTimeOK(t) {
			return false
		}
		*f = t
	}
	return true
}

// parseCount reads a count of decimal digits, at most limit.
func parseCount(value string, limit int64) (int64, bool) {
	if value == "" || len(value) > 16 || strings.Trim(value, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(value, 10, 64)
	return n, err == nil && n <= limit
}

// parseModelUsage reads "<input> <cache read> <cache write> <output>
// <model>"; the model may be empty.
func parseModelUsage(value string) (snapshot.ModelUsage, bool) {
	f := strings.SplitN(value, " ", 5)
	if len(f) < 4 {
		return snapshot.ModelUsage{}, false
	}
	var n [4]int64
	for i := range n {
		v, ok := parseCount(f[i], maxHeaderTokens)
		if !ok {
			return snapshot.ModelUsage{}, false
		}
		n[i] = v
	}
	m := snapshot.ModelUsage{Usage: snapshot.Usage{Input: n[0], CacheRead: n[1], CacheWrite: n[2], Output: n[3]}}
	if len(f) == 5 {
		m.Model = f[4]
	}
	return m, true
}

// parseCounts reads k counts and a model name (which may be empty), as
// the parts of a model's usage are written.
func parseCounts(value string, k int) ([]int64, string, bool) {
	f := strings.SplitN(value, " ", k+1)
	if len(f) < k {
		return nil, "", false
	}
	n := make([]int64, k)
	for i := range n {
		v, ok := parseCount(f[i], maxHeaderTokens)
		if !ok {
			return nil, "", false
		}
		n[i] = v
	}
	model := ""
	if len(f) == k+1 {
		model = f[k]
	}
	return n, model, true
}

// findModel is the usage of model in the list read so far; nil when
// Snap-Model-Usage named it not (the part is then ignored).
func findModel(list []snapshot.ModelUsage, model string) *snapshot.ModelUsage {
	for i := range list {
		if list[i].Model == model {
			return &list[i]
		}
	}
	return nil
}

func subject(h snapshot.Header) string {
	switch {
	case h.Message != "":
		return oneLine(h.Message)
	case h.Label != "":
		return oneLine(h.Label)
	}
	return "snapshot"
}

// oneLine puts a value on one line for a subject or trailer. Control
// characters become spaces first: values come from hook payloads and
// transcripts (an event or tool name), and a NUL in a commit makes git
// fsck --strict report nulInCommit and every remote with
// receive.fsckObjects refuse all later pushes.
func oneLine(s string) string {
	return strings.Join(strings.Fields(NoControl(s, false)), " ")
}

// NoControl replaces the control characters of s (C0, DEL, C1) with
// spaces, keeping newlines when keepNewlines is set (a message body), so
// that nothing git would refuse in an object's text reaches one.
func NoControl(s string, keepNewlines bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && (r != '\n' || !keepNewlines) }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && (r != '\n' || !keepNewlines) {
			return ' '
		}
		return r
	}, s)
}

// ParseHeader reads a header back from a commit message. It returns
// false when the message is not a snapshot's: no Snap-Session trailer,
// a trailer out of its bounds (see parseTrailer), or a commit time
// outside the years a header may name.
func ParseHeader(msg string, when time.Time) (snapshot.Header, bool) {
	h := snapshot.Header{Time: when}
	valid := headerTimeOK(when)
	subj, _, _ := strings.Cut(msg, "\n")
	// Lines as bufio.ScanLines cuts them (one \r before the newline
	// dropped), without copying each.
	for rest := msg; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ": ")
		if i, known := trailerIndex[key]; ok && known && !parseTrailer(trailers[i].field(&h), value) {
			valid = false
		}
	}
	if subj != h.Label && subj != "snapshot" {
		h.Message = subj
	}
	if !h.Counted {
		h.Totals = snapshot.Totals{} // stray totals on an uncounted commit say nothing
	}
	return h, valid && h.Session != ""
}
