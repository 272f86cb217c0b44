package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/usage"
)

// SchemaVersion is the version of the shape of every --json output
// (docs/json.md, docs/schema/). Keys may be added within a version; one
// that is removed, renamed or changes meaning makes a new version.
const SchemaVersion = 1

// The rules every --json output keeps, so that a script reads them all
// one way: an object with schema_version at the top; times RFC 3339 in
// UTC with milliseconds, durations in seconds as numbers; every key always
// there, null for a value that does not exist (never "" or a missing
// key); lists [] and maps {} when empty, never null.

// TimeJSON is t as every output writes a time; nil for the zero time.
func TimeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z")
	return &s
}

// SecondsJSON is d in seconds, to the millisecond.
func SecondsJSON(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// nullable is s, or nil for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// EntryJSON is a snapshot's header as scripts read it.
type EntryJSON struct {
	ID          string   `json:"id"`
	Parent      *string  `json:"parent"`
	Session     string   `json:"session"`
	Seq         int      `json:"seq"`
	Turn        *int     `json:"turn"`
	Label       *string  `json:"label"`
	Source      *string  `json:"source"`
	Message     *string  `json:"message"`
	Time        *string  `json:"time"`
	Code        *string  `json:"code"`
	Dirty       bool     `json:"dirty"`
	Messages    int      `json:"messages"`
	Events      int      `json:"events"`
	Files       int      `json:"files"`
	RollbackOf  *string  `json:"rollback_of"`
	Checkpoints []string `json:"checkpoints"`
}

// EntryToJSON is e with the names of the checkpoints on it.
func EntryToJSON(e storage.Entry, checkpoints []string) EntryJSON {
	h := e.Header
	j := EntryJSON{
		ID: e.ID.String(), Session: h.Session, Seq: h.Seq, Label: nullable(h.Label),
		Source: nullable(h.Source), Message: nullable(h.Message), Time: TimeJSON(h.Time), Code: nullable(h.Code),
		Dirty: h.Dirty, Messages: h.Messages, Events: h.Events, Files: h.Files,
		RollbackOf: nullable(h.RollbackOf), Checkpoints: append([]string{}, checkpoints...),
	}
	if h.Turn > 0 {
		turn := h.Turn
		j.Turn = &turn
	}
	if !e.Parent.IsZero() {
		j.Parent = nullable(e.Parent.String())
	}
	return j
}

// LogJSON is log --json.
type LogJSON struct {
	SchemaVersion int         `json:"schema_version"`
	Snapshots     []EntryJSON `json:"snapshots"`
}

// NewLogJSON is log --json of entries.
func NewLogJSON(entries []EntryJSON) LogJSON {
	return LogJSON{SchemaVersion, append([]EntryJSON{}, entries...)}
}

// CostJSON is a cost estimate.
type CostJSON struct {
	USD           float64  `json:"usd"`
	USDMicros     int64    `json:"usd_micros"`
	Estimate      bool     `json:"estimate"`
	PricesDate    string   `json:"prices_date"`
	UnknownModels []string `json:"unknown_models"`
}

// NumbersJSON is what show, stats and trace count; first and last are
// the records' times.
type NumbersJSON struct {
	Messages         int       `json:"messages"`
	Records          int       `json:"records"`
	Events           int       `json:"events"`
	Files            int       `json:"files"`
	Turns            int       `json:"turns"`
	ToolCalls        int       `json:"tool_calls"`
	ToolFailures     int       `json:"tool_failures"`
	ModelCalls       int       `json:"model_calls"`
	Compactions      int       `json:"compactions"`
	InputTokens      int64     `json:"input_tokens"`
	CacheReadTokens  int64     `json:"cache_read_tokens"`
	CacheWriteTokens int64     `json:"cache_write_tokens"`
	OutputTokens     int64     `json:"output_tokens"`
	TokensEstimated  bool      `json:"tokens_estimated"`
	First            *string   `json:"first"`
	Last             *string   `json:"last"`
	DurationSeconds  *float64  `json:"duration_seconds"`
	Cost             *CostJSON `json:"cost"`
}

// NumbersToJSON is n with its span from first to last (zero: unknown).
func NumbersToJSON(n agent.Numbers, first, last time.Time) NumbersJSON {
	j := NumbersJSON{
		Messages: n.Messages, Records: n.Records, Events: n.Events, Files: n.Files, Turns: n.Turns, ToolCalls: n.ToolCalls,
		ToolFailures: n.ToolFailures, ModelCalls: n.ModelCalls, Compactions: n.Compactions,
		InputTokens: n.InputTokens, CacheReadTokens: n.CacheReadTokens, CacheWriteTokens: n.CacheWriteTokens,
		OutputTokens: n.OutputTokens, TokensEstimated: n.Estimated, First: TimeJSON(first), Last: TimeJSON(last),
	}
	if !first.IsZero() && !last.IsZero() {
		d := SecondsJSON(last.Sub(first))
		j.DurationSeconds = &d
	}
	if c := n.Cost; c != nil {
		j.Cost = CostToJSON(*c)
	}
	return j
}

// ShowJSON is show --json: the header, the numbers and the document.
type ShowJSON struct {
	SchemaVersion int            `json:"schema_version"`
	Snapshot      EntryJSON      `json:"snapshot"`
	Stats         NumbersJSON    `json:"stats"`
	Document      map[string]any `json:"document"`
}

// NewShowJSON is show --json.
func NewShowJSON(e EntryJSON, n NumbersJSON, doc map[string]any) ShowJSON {
	return ShowJSON{SchemaVersion, e, n, doc}
}

// StatsJSON is stats --json: sessions summed.
type StatsJSON struct {
	SchemaVersion int            `json:"schema_version"`
	Sessions      int            `json:"sessions"`
	Snapshots     int            `json:"snapshots"`
	Checkpoints   map[string]int `json:"checkpoints"` // name → how many sessions have it
	NumbersJSON
}

// NewStatsJSON is stats --json.
func NewStatsJSON(sessions, snapshots int, checkpoints map[string]int, n NumbersJSON) StatsJSON {
	if checkpoints == nil {
		checkpoints = map[string]int{}
	}
	return StatsJSON{SchemaVersion, sessions, snapshots, checkpoints, n}
}

// TraceLineJSON is one line of a timeline.
type TraceLineJSON struct {
	Time   *string `json:"time"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
	OK     *bool   `json:"ok"` // tools only
}

// TraceJSON is trace --json.
type TraceJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Snapshot      EntryJSON       `json:"snapshot"`
	Timeline      []TraceLineJSON `json:"timeline"`
	Stats         NumbersJSON     `json:"stats"`
}

// NewTraceJSON is trace --json of a snapshot's timeline and numbers.
func NewTraceJSON(e EntryJSON, lines []agent.TraceLine, n NumbersJSON) TraceJSON {
	tl := make([]TraceLineJSON, 0, len(lines))
	for _, l := range lines {
		tl = append(tl, TraceLineJSON{Time: TimeJSON(l.At), Kind: l.Kind, Detail: l.Detail, OK: l.OK})
	}
	return TraceJSON{SchemaVersion, e, tl, n}
}

// SessionJSON is one session in sessions --json.
type SessionJSON struct {
	Name      string  `json:"name"`
	Ref       string  `json:"ref"`
	Snapshots int     `json:"snapshots"`
	First     *string `json:"first"`
	Last      *string `json:"last"`
	LastLabel *string `json:"last_label"`
	Agent     *string `json:"agent"`
	Tip       string  `json:"tip"`
	// Tokens and Cost are the session's, null when its newest snapshot
	// keeps no totals.
	Tokens *TokensJSON `json:"tokens"`
	Cost   *CostJSON   `json:"cost"`
}

// TokensJSON are token counts of each kind; total is their sum, and
// cache_write_1h the part of cache_write written for an hour.
type TokensJSON struct {
	Input        int64 `json:"input"`
	CacheRead    int64 `json:"cache_read"`
	CacheWrite   int64 `json:"cache_write"`
	CacheWrite1h int64 `json:"cache_write_1h"`
	Output       int64 `json:"output"`
	Total        int64 `json:"total"`
}

// TokensToJSON is u's counts.
func TokensToJSON(u snapshot.Usage) *TokensJSON {
	return &TokensJSON{u.Input, u.CacheRead, u.CacheWrite, u.CacheWrite1h, u.Output, u.Total()}
}

// CostToJSON is c as every output writes a cost.
func CostToJSON(c prices.Cost) *CostJSON {
	return &CostJSON{USD: c.USD, USDMicros: c.Micros, Estimate: c.Estimate, PricesDate: c.PricesDate, UnknownModels: append([]string{}, c.Unknown...)}
}

// LastTime is the time of a session's newest snapshot h, never before
// the session started: a snapshot's time is its commit's, in whole
// seconds, where the start keeps its fraction.
func LastTime(h snapshot.Header) time.Time {
	if h.Time.Before(h.Started) {
		return h.Started
	}
	return h.Time
}

// SessionSpan is a session's first and last times: its records' when
// its newest snapshot keeps them (to the millisecond), else its
// snapshots'.
func SessionSpan(h snapshot.Header) (first, last time.Time) {
	if h.Counted && !h.Totals.First.IsZero() {
		return h.Totals.First, h.Totals.Last
	}
	return h.Started, LastTime(h)
}

// SessionToJSON is s as sessions --json lists it, with its tokens and
// their cost when known.
func SessionToJSON(s storage.Session, cost *prices.Cost) SessionJSON {
	h := s.Tip.Header
	first, last := SessionSpan(h)
	j := SessionJSON{
		Name: s.Name, Ref: s.Ref, Snapshots: h.Seq, First: TimeJSON(first), Last: TimeJSON(last),
		LastLabel: nullable(h.Label), Agent: nullable(h.Source), Tip: s.Tip.ID.String(),
	}
	j.Tokens = HeaderTokensJSON(h)
	if cost != nil {
		j.Cost = CostToJSON(*cost)
	}
	return j
}

// HeaderTokensJSON is the tokens of the session whose newest snapshot's
// header is h, as sessions --json lists them: nil without totals.
func HeaderTokensJSON(h snapshot.Header) *TokensJSON {
	if !h.Counted {
		return nil
	}
	var u snapshot.Usage
	for _, m := range h.Totals.ByModel {
		u.Add(m.Usage)
	}
	if u == (snapshot.Usage{}) {
		u = snapshot.Usage{Input: h.Totals.InputTokens, CacheRead: h.Totals.CacheReadTokens, CacheWrite: h.Totals.CacheWriteTokens, Output: h.Totals.OutputTokens}
	}
	return TokensToJSON(u)
}

// UsageRowJSON is one row of usage --json.
type UsageRowJSON struct {
	Period   *string     `json:"period"` // null in the total
	Key      *string     `json:"key"`    // the split's value; null without --by, and in the total
	Sessions int         `json:"sessions"`
	Models   []string    `json:"models"`
	Tokens   *TokensJSON `json:"tokens"`
	Cost     *CostJSON   `json:"cost"`
}

// UsageJSON is usage --json.
type UsageJSON struct {
	SchemaVersion int            `json:"schema_version"`
	Period        string         `json:"period"`
	By            *string        `json:"by"`
	TimeZone      string         `json:"timezone"`
	Since         *string        `json:"since"`
	Until         *string        `json:"until"`
	Rows          []UsageRowJSON `json:"rows"`
	Total         UsageRowJSON   `json:"total"`
}

// NewUsageJSON is usage --json of a report.
func NewUsageJSON(r usage.Report) UsageJSON {
	row := func(x usage.Row, total bool) UsageRowJSON {
		j := UsageRowJSON{Sessions: x.Sessions, Models: append([]string{}, x.Models...), Tokens: TokensToJSON(x.Usage), Cost: CostToJSON(x.Cost)}
		if !total {
			j.Period = &x.Period
			if r.Options.By != "" {
				key := x.Key
				j.Key = &key
			}
		}
		return j
	}
	j := UsageJSON{SchemaVersion: SchemaVersion, Period: r.Options.Period, By: nullable(r.Options.By), TimeZone: r.Options.Location.String(),
		Since: TimeJSON(r.Options.Since), Until: TimeJSON(r.Options.Until), Rows: []UsageRowJSON{}, Total: row(r.Total, true)}
	for _, x := range r.Rows {
		j.Rows = append(j.Rows, row(x, false))
	}
	return j
}

// SessionsJSON is sessions --json.
type SessionsJSON struct {
	SchemaVersion int           `json:"schema_version"`
	Sessions      []SessionJSON `json:"sessions"`
}

// NewSessionsJSON is sessions --json.
func NewSessionsJSON(s []SessionJSON) SessionsJSON {
	return SessionsJSON{SchemaVersion, append([]SessionJSON{}, s...)}
}

// WriteSessionsJSON writes sessions --json as JSON writes
// NewSessionsJSON of the same sessions, byte for byte, one session at a
// time: a listing of 100k sessions is never held whole.
func WriteSessionsJSON(w io.Writer, sessions iter.Seq[SessionJSON]) error {
	bw := bufio.NewWriter(w) // a failed write is Flush's error
	fmt.Fprintf(bw, "{\n  \"schema_version\": %d,\n  \"sessions\": [", SchemaVersion)
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	sep := "\n    "
	for s := range sessions {
		one.Reset()
		if err := enc.Encode(s); err != nil {
			return err
		}
		_, _ = bw.WriteString(sep)
		_, _ = bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		sep = ",\n    "
	}
	if sep != "\n    " {
		_, _ = bw.WriteString("\n  ")
	}
	_, _ = bw.WriteString("]\n}\n")
	return bw.Flush()
}

// CheckpointJSON is one checkpoint in checkpoint --list --json.
type CheckpointJSON struct {
	Session  string  `json:"session"`
	Name     string  `json:"name"`
	Ref      string  `json:"ref"`
	Snapshot string  `json:"snapshot"`
	Message  *string `json:"message"`
	Time     *string `json:"time"`
}

// CheckpointsJSON is checkpoint --list --json.
type CheckpointsJSON struct {
	SchemaVersion int              `json:"schema_version"`
	Checkpoints   []CheckpointJSON `json:"checkpoints"`
}

// NewCheckpointsJSON is checkpoint --list --json of cps.
func NewCheckpointsJSON(cps []storage.Checkpoint) CheckpointsJSON {
	out := CheckpointsJSON{SchemaVersion, []CheckpointJSON{}}
	for _, cp := range cps {
		out.Checkpoints = append(out.Checkpoints, CheckpointJSON{
			Session: cp.Session, Name: cp.Name, Ref: cp.Ref, Snapshot: cp.Target.String(),
			Message: nullable(cp.Message), Time: TimeJSON(cp.Time),
		})
	}
	return out
}

// FindingJSON is one secret scan found.
type FindingJSON struct {
	Snapshot string `json:"snapshot"` // the newest snapshot that holds it
	Session  string `json:"session"`
	Seq      int    `json:"seq"`
	Rule     string `json:"rule"`
	Path     string `json:"path"`
	Preview  string `json:"preview"` // masked
}

// FindingToJSON is f as scan --json lists it.
func FindingToJSON(e storage.Entry, f redact.Finding) FindingJSON {
	return FindingJSON{e.ID.String(), e.Header.Session, e.Header.Seq, f.Rule, f.Path, f.Preview}
}

// ScanJSON is scan --json.
type ScanJSON struct {
	SchemaVersion int           `json:"schema_version"`
	Findings      []FindingJSON `json:"findings"`
}

// NewScanJSON is scan --json.
func NewScanJSON(f []FindingJSON) ScanJSON {
	return ScanJSON{SchemaVersion, append([]FindingJSON{}, f...)}
}

// DiffJSON is diff --json: what changed from one snapshot to another.
type DiffJSON struct {
	SchemaVersion int                 `json:"schema_version"`
	From          *string             `json:"from"` // null: B is its session's first snapshot
	To            string              `json:"to"`
	Messages      []ElementJSON       `json:"messages"`
	Events        []ElementJSON       `json:"events"`
	Members       []MemberJSON        `json:"members"`
	Files         []FileChangeJSON    `json:"files"`
	Tokens        snapshot.TokenDelta `json:"tokens"`
}

// ElementJSON is a message or event added, removed or changed.
type ElementJSON struct {
	Op     string `json:"op"`
	Key    string `json:"key"`
	Index  int    `json:"index"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// MemberJSON is a change at one JSON path of the other members.
type MemberJSON struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// FileChangeJSON is a captured file added, removed or changed.
type FileChangeJSON struct {
	Op           string  `json:"op"`
	Path         string  `json:"path"`
	ModeBefore   *string `json:"mode_before"`
	ModeAfter    *string `json:"mode_after"`
	Binary       bool    `json:"binary"`
	Patch        *string `json:"patch"`
	LinesAdded   int     `json:"lines_added"`
	LinesRemoved int     `json:"lines_removed"`
}

// NewDiffJSON is diff --json of d, from a (zero: none) to b.
func NewDiffJSON(from, to string, d *snapshot.Diff) DiffJSON {
	j := DiffJSON{
		SchemaVersion: SchemaVersion, From: nullable(from), To: to,
		Messages: elementsJSON(d.Messages), Events: elementsJSON(d.Events),
		Members: []MemberJSON{}, Files: []FileChangeJSON{}, Tokens: d.Tokens,
	}
	for _, m := range d.Members {
		j.Members = append(j.Members, MemberJSON{m.Op, m.Path, m.Before, m.After})
	}
	for _, f := range d.Files {
		j.Files = append(j.Files, FileChangeJSON{
			Op: f.Op, Path: f.Path, ModeBefore: nullable(f.ModeA), ModeAfter: nullable(f.ModeB),
			Binary: f.Binary, Patch: nullable(f.Patch), LinesAdded: f.Added, LinesRemoved: f.Removed,
		})
	}
	return j
}

func elementsJSON(changes []snapshot.ElementChange) []ElementJSON {
	out := make([]ElementJSON, 0, len(changes))
	for _, c := range changes {
		out = append(out, ElementJSON{c.Op, c.Key, c.Index, c.Before, c.After})
	}
	return out
}
