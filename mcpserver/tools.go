package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/approxidate"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Tool names, as clients call them.
const (
	ToolListSessions    = "list_sessions"
	ToolListSnapshots   = "list_snapshots"
	ToolSearch          = "search"
	ToolShow            = "show"
	ToolDiff            = "diff"
	ToolListCheckpoints = "list_checkpoints"
	ToolCheckpoint      = "checkpoint"
	ToolRollback        = "rollback"
)

// ReadTools are the tools every server has; WriteTools those it has only
// with Options.AllowWrite.
var (
	ReadTools  = []string{ToolListSessions, ToolListSnapshots, ToolSearch, ToolShow, ToolDiff, ToolListCheckpoints}
	WriteTools = []string{ToolCheckpoint, ToolRollback}
)

// text wraps a tool's answer in one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// handler adapts a tool's function to the SDK: the store is held while
// it runs, and a panic becomes the call's error.
func handler[In any](s *Server, fn func(ctx context.Context, in In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		var out string
		err := s.withStore(func() error {
			var err error
			out, err = fn(ctx, in)
			return err
		})
		if err != nil {
			return nil, nil, s.withinBudget(err)
		}
		return text(out), nil, nil
	}
}

// addTool adds a tool and records the arguments it takes, for
// checkArgs.
func addTool[In any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, any]) {
	var names []string
	rt := reflect.TypeFor[In]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	s.args[t.Name] = names
	mcp.AddTool(s.mcp, t, h)
}

// checkArgs answers a call that gives a tool an argument it does not
// take with an error naming it and the arguments the tool takes, before
// the SDK's schema check says it in its own words.
func (s *Server) checkArgs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok {
			return next(ctx, method, req)
		}
		known, ok := s.args[p.Name]
		var given map[string]json.RawMessage
		if !ok || len(p.Arguments) == 0 || json.Unmarshal(p.Arguments, &given) != nil {
			return next(ctx, method, req)
		}
		var unknown []string
		for name := range given {
			if !slices.Contains(known, name) {
				unknown = append(unknown, strconv.Quote(name))
			}
		}
		if len(unknown) == 0 {
			return next(ctx, method, req)
		}
		slices.Sort(unknown)
		r := &mcp.CallToolResult{}
		r.SetError(s.withinBudget(fmt.Errorf("%s does not take %s: its arguments are %s", p.Name, strings.Join(unknown, ", "), strings.Join(known, ", "))))
		return r, nil
	}
}

func readOnly(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

func (s *Server) addTools() {
	addTool(s, &mcp.Tool{Name: ToolListSessions, Annotations: readOnly("List sessions"),
		Description: "List the sessions kept in the repository, most recently active first (as git snap sessions): name, snapshots, first and last time, agent, tokens and estimated cost. Fetched sessions are listed with their remote; use their rev to read them. Filters: session and agent globs, since/until dates."},
		handler(s, s.listSessions))
	addTool(s, &mcp.Tool{Name: ToolListSnapshots, Annotations: readOnly("List snapshots"),
		Description: "List a session's snapshots, newest first (as git snap log): id, number, label, time, code commit, checkpoints. Filters: label glob, since/until dates."},
		handler(s, s.listSnapshots))
	addTool(s, &mcp.Tool{Name: ToolSearch, Annotations: readOnly("Search sessions"),
		Description: "Find lines in every session's messages, tool inputs and results, and captured file paths (as git snap search). Each hit names the session, the snapshot that first held it, the message index and role, the field and the line. pattern is a basic regular expression like git grep's by default; syntax extended takes RE2, fixed a literal string."},
		handler(s, s.search))
	addTool(s, &mcp.Tool{Name: ToolShow, Annotations: readOnly("Read a session"),
		Description: "Read a session as Markdown (as git snap export --format markdown): a header, then each turn's prompt, answer and tool calls with their inputs and results, and the files each turn changed. turn reads one turn; from reads only what happened after an earlier snapshot; path reads a captured file or a member of the document (messages/3) at the snapshot instead. The answer is cut at the budget; offset pages on."},
		handler(s, s.show))
	addTool(s, &mcp.Tool{Name: ToolDiff, Annotations: readOnly("Compare snapshots"),
		Description: "Compare two snapshots (as git snap diff): messages and events added, removed or changed, other members by JSON path, captured files as text diffs, and the token delta. With only from, what that snapshot changed from its parent; from may also be a range A..B. format stat counts only, json gives everything."},
		handler(s, s.diff))
	addTool(s, &mcp.Tool{Name: ToolListCheckpoints, Annotations: readOnly("List checkpoints"),
		Description: "List the checkpoints (named snapshots) of one session or of all (as git snap checkpoint --list)."},
		handler(s, s.listCheckpoints))
	if !s.opts.AllowWrite {
		return
	}
	no := false
	addTool(s, &mcp.Tool{Name: ToolCheckpoint, Annotations: &mcp.ToolAnnotations{Title: "Set a checkpoint", DestructiveHint: &no, OpenWorldHint: &no},
		Description: "Name a snapshot, by default the session's newest, with a checkpoint snap/SESSION/NAME (as git snap checkpoint). A name in use moves only with force."},
		handler(s, s.checkpoint))
	addTool(s, &mcp.Tool{Name: ToolRollback, Annotations: &mcp.ToolAnnotations{Title: "Roll a session back", DestructiveHint: &no, OpenWorldHint: &no},
		Description: "Record, on rev's session, a new snapshot whose content is rev's (as git snap rollback). Nothing is deleted: later snapshots stay in the history."},
		handler(s, s.rollback))
}

// when parses the date argument called name; "" means no bound.
func (s *Server) when(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := approxidate.Parse(v, s.opts.Now())
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// checkGlob refuses a glob path.Match cannot read, naming the argument.
func checkGlob(name, glob string) error {
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("%s %q: not a glob (%v); use * ? and [...]", name, glob, err)
	}
	return nil
}

func match(glob, s string) bool {
	ok, _ := path.Match(glob, s)
	return glob == "" || ok
}

// ListSessionsArgs are list_sessions' arguments.
type ListSessionsArgs struct {
	Session string `json:"session,omitempty" jsonschema:"only sessions whose name matches this glob"`
	Agent   string `json:"agent,omitempty" jsonschema:"only sessions recorded by this agent (claude-code, codex, gemini, import, cli, …; a glob)"`
	Since   string `json:"since,omitempty" jsonschema:"only sessions active after this date (2026-01-31, RFC 3339, yesterday, 2h, 3d)"`
	Until   string `json:"until,omitempty" jsonschema:"only sessions that began before this date"`
	Limit   int    `json:"limit,omitempty" jsonschema:"list at most this many sessions (default 100)"`
}

// sessionOut is one session in list_sessions' answer: the entry git snap
// sessions --json prints, plus the remote it came from and the revision
// to read it by.
type sessionOut struct {
	render.SessionJSON
	Remote string `json:"remote,omitempty"`
	Rev    string `json:"rev"`
}

type sessionsOut struct {
	Sessions []sessionOut `json:"sessions"`
	Matched  int          `json:"matched"`
	Omitted  int          `json:"omitted,omitempty"`
	// Unreadable are the revs of sessions left out: their newest
	// snapshot could not be read.
	Unreadable []string `json:"unreadable,omitempty"`
	Note       string   `json:"note,omitempty"`
}

func (s *Server) listSessions(ctx context.Context, in ListSessionsArgs) (string, error) {
	for name, g := range map[string]string{"session": in.Session, "agent": in.Agent} {
		if err := checkGlob(name, g); err != nil {
			return "", err
		}
	}
	since, err := s.when("since", in.Since)
	if err != nil {
		return "", err
	}
	until, err := s.when("until", in.Until)
	if err != nil {
		return "", err
	}
	if in.Limit < 0 {
		return "", fmt.Errorf("limit %d: give 1 or more, or leave it out", in.Limit)
	}
	sessions, remotes, unread, err := s.sessions(ctx, in.Session, in.Agent)
	if err != nil {
		return "", err
	}
	var all []sessionOut
	for i, sess := range sessions {
		first, last := render.SessionSpan(sess.Tip.Header)
		if (!since.IsZero() && last.Before(since)) || (!until.IsZero() && first.After(until)) {
			continue
		}
		var cost *prices.Cost
		if n, ok := agent.NumbersOfHeader(sess.Tip.Header); ok {
			c := s.opts.Prices.Estimate(n.ByModel)
			cost = &c
		}
		out := sessionOut{SessionJSON: render.SessionToJSON(sess, cost), Remote: remotes[i], Rev: sess.Name}
		if remotes[i] != "" {
			out.Rev = sess.Ref
		}
		all = append(all, out)
	}
	shown := all[:min(cmp.Or(in.Limit, 100), len(all))]
	text, _, err := fitList(len(shown), s.opts.Budget, func(k int) any {
		o := sessionsOut{Sessions: append([]sessionOut{}, shown[:k]...), Matched: len(all), Omitted: len(all) - k, Unreadable: unread}
		if o.Omitted > 0 {
			o.Note = "more sessions match than are listed: narrow with session, agent, since or until, or raise limit"
		}
		if len(unread) > 0 {
			o.Note = strings.TrimPrefix(o.Note+"; "+unreadNote, "; ")
		}
		return o
	})
	return text, err
}

// unreadNote says what to do about sessions listed as unreadable.
const unreadNote = "the sessions under unreadable could not be read (their newest snapshot's objects are missing or damaged; git fsck --full names them): git snap pull from a clone that has them brings them back"

// sessions returns the local and fetched sessions whose name and agent
// match the globs, most recently active first, each with its totals on
// its header (as git snap sessions lists them), and the remote each was
// fetched from ("" for a local one). unread holds the revs of sessions
// whose newest snapshot cannot be read, so whose agent is unknown.
func (s *Server) sessions(ctx context.Context, name, agentGlob string) (_ []storage.Session, _ []string, unread []string, _ error) {
	st := s.opts.Repo
	tips, err := st.Storage().Tips(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing sessions: %w", err)
	}
	type found struct {
		sess   storage.Session
		remote string
	}
	var list []found
	for _, ref := range slices.Sorted(maps.Keys(tips)) {
		session, remote, ok := st.Storage().SessionOfRef(ref)
		if !ok || !match(name, session) {
			continue
		}
		e, err := st.Entry(ctx, tips[ref])
		if gitstore.IsDamaged(err) {
			rev := session // as Rev names a listed one
			if remote != "" {
				rev = ref
			}
			unread = append(unread, rev)
			continue
		}
		if err != nil {
			continue // a ref someone else put there: not a session
		}
		if match(agentGlob, e.Header.Source) {
			list = append(list, found{storage.Session{Name: session, Ref: ref, Tip: e}, remote})
		}
	}
	slices.SortStableFunc(list, func(a, b found) int { return b.sess.Tip.Header.Time.Compare(a.sess.Tip.Header.Time) })
	sessions, remotes := make([]storage.Session, len(list)), make([]string, len(list))
	tipEntries := make([]storage.Entry, len(list))
	for i, f := range list {
		sessions[i], remotes[i], tipEntries[i] = f.sess, f.remote, f.sess.Tip
	}
	totals, counted, err := st.Totals(ctx, tipEntries)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("counting sessions' tokens: %w", err)
	}
	for i := range sessions {
		h := &sessions[i].Tip.Header
		h.Counted, h.Totals = counted[i], totals[i]
	}
	return sessions, remotes, unread, nil
}

// ListSnapshotsArgs are list_snapshots' arguments.
type ListSnapshotsArgs struct {
	Rev     string `json:"rev,omitempty" jsonschema:"the session or revision to list from (a session name, NAME~N, snap/SESSION/CHECKPOINT, an id); the most recently active session when left out"`
	Label   string `json:"label,omitempty" jsonschema:"only snapshots whose label matches this glob"`
	Since   string `json:"since,omitempty" jsonschema:"only snapshots after this date"`
	Until   string `json:"until,omitempty" jsonschema:"only snapshots before this date"`
	Limit   int    `json:"limit,omitempty" jsonschema:"list at most this many snapshots (default 50)"`
	Session string `json:"session,omitempty" jsonschema:"the session, when rev is left out"`
}

type snapshotsOut struct {
	Rev       string             `json:"rev"`
	Snapshots []render.EntryJSON `json:"snapshots"`
	Omitted   int                `json:"omitted,omitempty"`
	Note      string             `json:"note,omitempty"`
}

// errEnough stops a walk that has found what it looks for.
var errEnough = errors.New("enough")

// rev returns the revision a call asks for: rev, else session, else the
// most recently active session.
func (s *Server) rev(ctx context.Context, rev, session string) (string, error) {
	if rev != "" && session != "" {
		return "", errors.New("give rev or session, not both")
	}
	if rev != "" {
		return rev, nil
	}
	st := s.opts.Repo
	if session != "" {
		return st.FindSession(ctx, session)
	}
	sessions, err := st.Sessions(ctx)
	if err != nil {
		return "", fmt.Errorf("listing sessions: %w", err)
	}
	if len(sessions) == 0 {
		return "", errors.New("the repository keeps no sessions yet")
	}
	return sessions[0].Name, nil
}

func (s *Server) listSnapshots(ctx context.Context, in ListSnapshotsArgs) (string, error) {
	st := s.opts.Repo
	if err := checkGlob("label", in.Label); err != nil {
		return "", err
	}
	since, err := s.when("since", in.Since)
	if err != nil {
		return "", err
	}
	until, err := s.when("until", in.Until)
	if err != nil {
		return "", err
	}
	if in.Limit < 0 {
		return "", fmt.Errorf("limit %d: give 1 or more, or leave it out", in.Limit)
	}
	rev, err := s.rev(ctx, in.Rev, in.Session)
	if err != nil {
		return "", err
	}
	id, err := st.Resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	start, err := st.Entry(ctx, id)
	if err != nil {
		return "", err
	}
	names := map[storage.ID][]string{}
	cps, err := st.Checkpoints(ctx, start.Header.Session, false)
	if err != nil {
		return "", fmt.Errorf("reading checkpoints: %w", err)
	}
	for _, cp := range cps {
		names[cp.Target] = append(names[cp.Target], cp.Name)
	}
	limit := cmp.Or(in.Limit, 50)
	var entries []render.EntryJSON
	more := 0
	err = st.Walk(ctx, []storage.ID{id}, func(e storage.Entry) error {
		h := e.Header
		if (!since.IsZero() && h.Time.Before(since)) || (!until.IsZero() && h.Time.After(until)) || !match(in.Label, h.Label) {
			return nil
		}
		if len(entries) == limit {
			more++
			return errEnough
		}
		entries = append(entries, render.EntryToJSON(e, names[e.ID]))
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return "", fmt.Errorf("reading the history of %s: %w", rev, err)
	}
	text, _, err := fitList(len(entries), s.opts.Budget, func(k int) any {
		o := snapshotsOut{Rev: rev, Snapshots: append([]render.EntryJSON{}, entries[:k]...)}
		if k < len(entries) || more > 0 {
			o.Omitted = len(entries) - k
			o.Note = "older snapshots are not listed: raise limit, narrow with since, until or label, or list from an older rev (NAME~N)"
		}
		return o
	})
	return text, err
}

// SearchArgs are search's arguments.
type SearchArgs struct {
	Pattern      string `json:"pattern" jsonschema:"what to find, line by line"`
	Syntax       string `json:"syntax,omitempty" jsonschema:"basic (the default: git grep's basic regular expressions, where ( ) { } | + ? are literal), extended (RE2) or fixed (a literal string)"`
	IgnoreCase   bool   `json:"ignore_case,omitempty" jsonschema:"ignore case"`
	Session      string `json:"session,omitempty" jsonschema:"only sessions whose name matches this glob"`
	Agent        string `json:"agent,omitempty" jsonschema:"only sessions of this agent (a glob)"`
	Tool         string `json:"tool,omitempty" jsonschema:"only the inputs and results of this tool (a glob: Bash, Edit, shell, …)"`
	File         string `json:"file,omitempty" jsonschema:"only sessions that captured or wrote a file matching this glob (a path, or a base name)"`
	Label        string `json:"label,omitempty" jsonschema:"only messages first recorded by a snapshot whose label matches this glob"`
	Since        string `json:"since,omitempty" jsonschema:"only messages after this date"`
	Until        string `json:"until,omitempty" jsonschema:"only messages before this date"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"return at most this many lines (default 100)"`
	SessionsOnly bool   `json:"sessions_only,omitempty" jsonschema:"only the names of the sessions with a match"`
}

type searchOut struct {
	render.SearchJSON
	Omitted int    `json:"omitted,omitempty"`
	Note    string `json:"note,omitempty"`
}

func (s *Server) search(ctx context.Context, in SearchArgs) (string, error) {
	if in.Pattern == "" {
		return "", errors.New("pattern is empty: give the text or expression to find")
	}
	for name, g := range map[string]string{"session": in.Session, "agent": in.Agent, "tool": in.Tool, "file": in.File, "label": in.Label} {
		if err := checkGlob(name, g); err != nil {
			return "", err
		}
	}
	if in.MaxResults < 0 {
		return "", fmt.Errorf("max_results %d: give 1 or more, or leave it out", in.MaxResults)
	}
	q := search.Query{IgnoreCase: in.IgnoreCase, Session: in.Session, Agent: in.Agent, Tool: in.Tool, File: in.File,
		Label: in.Label, SessionsOnly: in.SessionsOnly}
	switch in.Syntax {
	case "", "basic":
		re, err := search.Basic(in.Pattern)
		if err != nil {
			return "", fmt.Errorf("pattern %q cannot be searched: %w", in.Pattern, err)
		}
		q.Pattern, q.Regexp = re, true
	case "extended":
		q.Pattern, q.Regexp = in.Pattern, true
	case "fixed":
		q.Pattern = in.Pattern
	default:
		return "", fmt.Errorf("syntax %q: choose basic, extended or fixed", in.Syntax)
	}
	var err error
	if q.Since, err = s.when("since", in.Since); err != nil {
		return "", err
	}
	if q.Until, err = s.when("until", in.Until); err != nil {
		return "", err
	}
	limit := cmp.Or(in.MaxResults, 100)
	q.Limit = limit + 1 // one more says whether there are more
	x, err := s.searchIndex(ctx)
	if err != nil {
		return "", err
	}
	hits, err := x.Search(ctx, q)
	var pe *search.PatternError
	if errors.As(err, &pe) {
		return "", fmt.Errorf("pattern %q cannot be searched: %s", in.Pattern, pe.Msg)
	}
	if err != nil {
		return "", err
	}
	more := len(hits) > limit
	hits = hits[:min(len(hits), limit)]
	text, _, err := fitList(len(hits), s.opts.Budget, func(k int) any {
		o := searchOut{SearchJSON: render.NewSearchJSON(hits[:k], in.SessionsOnly), Omitted: len(hits) - k}
		switch {
		case o.Omitted > 0 || more:
			o.Note = "more lines match than are listed: narrow with session, tool, file, since or until, or raise max_results"
		case len(hits) == 0:
			o.Note = "no line matches"
		}
		return o
	})
	return text, err
}

// ShowArgs are show's arguments.
type ShowArgs struct {
	Rev      string `json:"rev,omitempty" jsonschema:"the snapshot to read: a session name (its newest), NAME~N, snap/SESSION/CHECKPOINT, an id; the most recently active session when left out"`
	Session  string `json:"session,omitempty" jsonschema:"the session whose newest snapshot to read, when rev is left out"`
	Turn     int    `json:"turn,omitempty" jsonschema:"read only this turn (1 is the first prompt; 0 the records before it are not readable alone)"`
	From     string `json:"from,omitempty" jsonschema:"read only what happened after this earlier snapshot of the session"`
	Path     string `json:"path,omitempty" jsonschema:"read this captured file (as show --name-only lists them) or document member (a JSON Pointer: messages/3, config/model) at the snapshot instead"`
	Offset   int    `json:"offset,omitempty" jsonschema:"start at this character of the answer, to read on where a cut one stopped"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"cut the answer at this many characters (256 or more, at most the server's budget)"`
}

func (s *Server) show(ctx context.Context, in ShowArgs) (string, error) {
	limit, err := s.limit(in.MaxChars)
	if err != nil {
		return "", err
	}
	if in.Turn < 0 {
		return "", fmt.Errorf("turn %d: turns count from 1", in.Turn)
	}
	rev, err := s.rev(ctx, in.Rev, in.Session)
	if err != nil {
		return "", err
	}
	st := s.opts.Repo
	if in.Path != "" {
		if in.Turn != 0 || in.From != "" {
			return "", errors.New("path reads one file or member: leave out turn and from")
		}
		data, _, err := st.ReadPath(ctx, rev, in.Path)
		if err != nil {
			return "", err
		}
		if !utf8Valid(data) {
			return "", fmt.Errorf("%s at %s is binary (%d bytes): it cannot be shown as text", in.Path, rev, len(data))
		}
		return page(string(data), in.Offset, limit)
	}
	snap, err := st.Show(ctx, rev)
	if err != nil {
		return "", err
	}
	sess, err := report.Load(ctx, st.Storage(), snap, report.Options{From: in.From, Prices: s.opts.Prices})
	if err != nil {
		return "", err
	}
	if in.Turn > 0 {
		i := slices.IndexFunc(sess.Turns, func(t report.Turn) bool { return t.N == in.Turn })
		if i < 0 {
			return "", fmt.Errorf("turn %d: %s", in.Turn, turnsHave(sess))
		}
		sess.Turns = sess.Turns[i : i+1]
		sess.Other, sess.Events = nil, 0
	}
	var b bytes.Buffer
	if err := report.WriteMarkdown(ctx, &b, sess); err != nil {
		return "", fmt.Errorf("writing %s: %w", rev, err)
	}
	return page(b.String(), in.Offset, limit)
}

// turnsHave says which turns a session has, for the error about a turn
// it does not have.
func turnsHave(sess *report.Session) string {
	var ns []int
	for _, t := range sess.Turns {
		if t.N > 0 {
			ns = append(ns, t.N)
		}
	}
	if len(ns) == 0 {
		return fmt.Sprintf("snapshot %s has no prompt, so no turn to read: read it whole", short(sess.Snapshot))
	}
	return fmt.Sprintf("snapshot %s has turns %d to %d", short(sess.Snapshot), ns[0], ns[len(ns)-1])
}

func short(id string) string { return id[:min(12, len(id))] }

// utf8Valid reports whether b is text: valid UTF-8 with no NUL byte.
func utf8Valid(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// DiffArgs are diff's arguments.
type DiffArgs struct {
	From     string `json:"from,omitempty" jsonschema:"the older snapshot, or a range A..B; alone, the snapshot whose change from its parent to show; the most recently active session when from and to are left out"`
	To       string `json:"to,omitempty" jsonschema:"the newer snapshot"`
	Format   string `json:"format,omitempty" jsonschema:"text (the default), stat (counts only) or json (everything)"`
	All      bool   `json:"all,omitempty" jsonschema:"also records that are not conversation (progress lines) and git-snap's bookkeeping"`
	Offset   int    `json:"offset,omitempty" jsonschema:"start at this character of the answer, to read on where a cut one stopped"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"cut the answer at this many characters (256 or more, at most the server's budget)"`
}

func (s *Server) diff(ctx context.Context, in DiffArgs) (string, error) {
	limit, err := s.limit(in.MaxChars)
	if err != nil {
		return "", err
	}
	st := s.opts.Repo
	var revs []string
	switch {
	case in.From == "" && in.To != "":
		return "", errors.New("to needs from: give the older snapshot too, or from alone for what one snapshot changed")
	case in.From == "":
		rev, err := s.rev(ctx, "", "")
		if err != nil {
			return "", err
		}
		revs = []string{rev}
	case in.To == "":
		revs = []string{in.From}
	default:
		if strings.Contains(in.From, "..") || strings.Contains(in.To, "..") {
			return "", errors.New("give a range A..B in from alone, or two snapshots in from and to")
		}
		revs = []string{in.From, in.To}
	}
	a, b, err := st.ResolvePair(ctx, revs)
	if err != nil {
		return "", err
	}
	var d *snapshot.Diff
	if a.IsZero() {
		docB, _, err := st.Read(ctx, b)
		if err != nil {
			return "", err
		}
		d, err = snapshot.Compare(map[string]any{}, docB, agent.ViewMessage)
		if err != nil {
			return "", fmt.Errorf("comparing: %w", err)
		}
	} else if d, err = st.Diff(ctx, a, b); err != nil {
		return "", err
	}
	var out bytes.Buffer
	switch in.Format {
	case "", "text":
		fmt.Fprintf(&out, "diff %s..%s\n", shortHash(a), shortHash(b))
		render.DiffWith(&out, render.Palette{}, d, render.DiffOptions{All: in.All})
	case "stat":
		render.DiffStatWith(&out, d, render.DiffOptions{All: in.All})
	case "json":
		from := ""
		if !a.IsZero() {
			from = a.String()
		}
		t, err := marshal(render.NewDiffJSON(from, b.String(), d))
		if err != nil {
			return "", err
		}
		out.WriteString(t)
	default:
		return "", fmt.Errorf("format %q: choose text, stat or json", in.Format)
	}
	return page(out.String(), in.Offset, limit)
}

func shortHash(h storage.ID) string {
	if h.IsZero() {
		return "(none)"
	}
	return short(h.String())
}

// ListCheckpointsArgs are list_checkpoints' arguments.
type ListCheckpointsArgs struct {
	Session string `json:"session,omitempty" jsonschema:"only this session's checkpoints; every session's when left out"`
}

type checkpointsOut struct {
	render.CheckpointsJSON
	Omitted int    `json:"omitted,omitempty"`
	Note    string `json:"note,omitempty"`
}

func (s *Server) listCheckpoints(ctx context.Context, in ListCheckpointsArgs) (string, error) {
	st := s.opts.Repo
	session := in.Session
	if session != "" {
		var err error
		if session, err = st.FindSession(ctx, session); err != nil {
			return "", err
		}
	}
	cps, err := st.Checkpoints(ctx, session, false)
	if err != nil {
		return "", fmt.Errorf("reading checkpoints: %w", err)
	}
	text, _, err := fitList(len(cps), s.opts.Budget, func(k int) any {
		o := checkpointsOut{CheckpointsJSON: render.NewCheckpointsJSON(cps[:k]), Omitted: len(cps) - k}
		if o.Omitted > 0 {
			o.Note = "more checkpoints than fit: ask for one session's"
		}
		return o
	})
	return text, err
}

// CheckpointArgs are checkpoint's arguments.
type CheckpointArgs struct {
	Name    string `json:"name" jsonschema:"the checkpoint's name"`
	Rev     string `json:"rev,omitempty" jsonschema:"the snapshot to name; the newest of session when left out"`
	Session string `json:"session,omitempty" jsonschema:"the session whose newest snapshot to name, when rev is left out"`
	Message string `json:"message,omitempty" jsonschema:"a note kept with the checkpoint"`
	Force   bool   `json:"force,omitempty" jsonschema:"move the name when it is in use"`
}

func (s *Server) checkpoint(ctx context.Context, in CheckpointArgs) (string, error) {
	if in.Name == "" {
		return "", errors.New("name is empty: give the checkpoint a name")
	}
	if in.Rev == "" && in.Session == "" {
		return "", errors.New("say which snapshot to name: rev, or session for its newest")
	}
	rev, err := s.rev(ctx, in.Rev, in.Session)
	if err != nil {
		return "", err
	}
	st := s.opts.Repo
	id, err := st.Resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	cp, err := st.SetCheckpoint(ctx, in.Name, id, in.Message, in.Force)
	if err != nil {
		return "", err
	}
	return marshal(render.NewCheckpointSetJSON("set", cp))
}

// RollbackArgs are rollback's arguments.
type RollbackArgs struct {
	Rev     string `json:"rev" jsonschema:"the snapshot whose content the new one takes (NAME~1 is the one before the newest)"`
	Message string `json:"message,omitempty" jsonschema:"a note for the new snapshot"`
}

type rollbackOut struct {
	Snapshot   render.EntryJSON `json:"snapshot"`
	RollbackOf string           `json:"rollback_of"`
}

func (s *Server) rollback(ctx context.Context, in RollbackArgs) (string, error) {
	if in.Rev == "" {
		return "", errors.New("rev is empty: say which snapshot to roll back to (NAME~1 for the one before the newest)")
	}
	st := s.opts.Repo
	id, err := st.Resolve(ctx, in.Rev)
	if err != nil {
		return "", err
	}
	so := storage.SaveOptions{Message: in.Message}
	if s.opts.CodeState != nil {
		if code, dirty, err := s.opts.CodeState(ctx); err == nil && code != "" {
			so.Code, so.Dirty = code, dirty
		}
	}
	e, err := st.Rollback(ctx, id, so)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	return marshal(rollbackOut{Snapshot: render.EntryToJSON(e, nil), RollbackOf: id.String()})
}
