package viewer

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// maxPicked bounds the snapshots the "compare with" list offers.
const maxPicked = 1000

// snapshotView is the snapshot page's data.
type snapshotView struct {
	Rev         string
	Entry       storage.Entry
	SessionRev  string // names the session's tip: its name, or its fetched ref
	Now         time.Time
	Checkpoints []string
	Base        storage.Entry // what it is compared with; zero ID: nothing (the first snapshot)
	BaseRev     string        // as the picker gave it, "" for the parent
	Split       bool
	Others      []storage.Entry // the session's snapshots, newest first, to compare with
	Diff        diffView
	All         bool   // show what is not conversation and git-snap's bookkeeping too
	Hidden      string // what was left out, "" for nothing (agent.Hidden)
}

// diffView is a semantic diff laid out for the page.
type diffView struct {
	Messages []elementRow
	Events   []elementRow
	Members  []memberRow
	Files    []fileRow
	Tokens   snapshot.TokenDelta
	Empty    bool
}

type elementRow struct {
	Op, Key string
	Index   int
	Summary string
}

type memberRow struct{ Op, Path, Before, After string }

type fileRow struct {
	snapshot.FileChange
	Lines []diffLine // unified
	Rows  []splitRow // side by side
}

// diffLine is one line of a unified diff: its kind (add, del, ctx,
// hunk) and its numbers on each side, 0 where it has none.
type diffLine struct {
	Kind string
	A, B int
	Text string
}

type splitRow struct{ Left, Right diffLine }

func (s *Server) snapshotPage(w http.ResponseWriter, r *http.Request) {
	ctx, q := r.Context(), r.URL.Query()
	v := &snapshotView{Rev: r.PathValue("rev"), BaseRev: strings.TrimSpace(q.Get("to")), Split: q.Get("layout") == "split", Now: s.opts.Now()}
	var d *snapshot.Diff
	err := s.read(ctx, func(st storage.Reader) error {
		var err error
		d, err = s.snapshotDiff(ctx, st, v)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v.All = q.Get("all") != ""; !v.All {
		var hidden agent.Hidden
		d, hidden = agent.HideNoise(d) // what show and diff leave out, left out here too
		v.Hidden = hidden.String()
	}
	v.Diff = layoutDiff(d)
	h := v.Entry.Header
	s.render(w, r, "snapshot", page{Title: h.Session + " #" + strconv.Itoa(h.Seq), Nav: "sessions", Data: v})
}

// snapshotDiff reads the snapshot v names, what it is compared with, and
// the diff between them.
func (s *Server) snapshotDiff(ctx context.Context, st storage.Reader, v *snapshotView) (*snapshot.Diff, error) {
	id, err := st.Resolve(ctx, v.Rev)
	if err != nil {
		return nil, err
	}
	if v.Entry, err = st.Entry(ctx, id); err != nil {
		return nil, err
	}
	if v.SessionRev, err = sessionRev(ctx, st, v.Entry); err != nil {
		return nil, err
	}
	if v.Checkpoints, err = gitsnap.CheckpointsOn(ctx, st, v.Entry); err != nil {
		return nil, err
	}
	if v.Others, err = chain(ctx, st, id); err != nil {
		return nil, err
	}
	base := v.Entry.Parent
	if v.BaseRev != "" {
		if base, err = st.Resolve(ctx, v.BaseRev); err != nil {
			return nil, err
		}
	}
	if base.IsZero() {
		doc, _, err := st.Read(ctx, id)
		if err != nil {
			return nil, err
		}
		return snapshot.Compare(map[string]any{}, doc, agent.ViewMessage)
	}
	if v.Base, err = st.Entry(ctx, base); err != nil {
		return nil, err
	}
	return st.Diff(ctx, base, id)
}

// sessionRev names the live session a snapshot belongs to: the local
// session of its name, else a fetched one, else (a session since
// dropped) the snapshot itself.
func sessionRev(ctx context.Context, st storage.Reader, e storage.Entry) (string, error) {
	name := e.Header.Session
	if tip, err := st.SessionTip(name); err == nil && !tip.IsZero() {
		return name, nil
	}
	tips, err := st.Tips(ctx)
	if err != nil {
		return "", err
	}
	for _, ref := range slices.Sorted(maps.Keys(tips)) {
		if s, remote, ok := st.SessionOfRef(ref); ok && s == name && remote != "" {
			return ref, nil
		}
	}
	return e.ID.String(), nil
}

// chain lists the snapshots of id's session up to its tip, newest
// first, at most maxPicked.
func chain(ctx context.Context, st storage.Reader, id storage.ID) ([]storage.Entry, error) {
	e, err := st.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	start := id
	if tip, err := st.SessionTip(e.Header.Session); err == nil && !tip.IsZero() {
		start = tip
	}
	var out []storage.Entry
	err = st.Walk(ctx, []storage.ID{start}, func(e storage.Entry) error {
		out = append(out, e)
		if len(out) >= maxPicked {
			return storage.ErrStop
		}
		return nil
	})
	return out, err
}

func layoutDiff(d *snapshot.Diff) diffView {
	v := diffView{Tokens: d.Tokens, Empty: d.Empty()}
	v.Messages = elementRows(d.Messages)
	v.Events = elementRows(d.Events)
	for _, m := range d.Members {
		v.Members = append(v.Members, memberRow{Op: m.Op, Path: m.Path, Before: jsonText(m.Before), After: jsonText(m.After)})
	}
	for _, f := range d.Files {
		lines := parsePatch(f.Patch)
		v.Files = append(v.Files, fileRow{FileChange: f, Lines: lines, Rows: sideBySide(lines)})
	}
	return v
}

func elementRows(changes []snapshot.ElementChange) []elementRow {
	var out []elementRow
	for _, c := range changes {
		val := c.After
		if c.Op == snapshot.OpRemoved {
			val = c.Before
		}
		out = append(out, elementRow{Op: c.Op, Key: c.Key, Index: c.Index, Summary: render.Summary(val)})
	}
	return out
}

// jsonText is a member's value as canonical JSON, cut at 2,000 bytes.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, err := snapshot.MarshalIndent(v)
	if err != nil {
		return render.Compact(v)
	}
	if len(b) > 2000 {
		return string(b[:2000]) + "\n…"
	}
	return string(b)
}

// parsePatch reads a unified diff (snapshot.UnifiedDiff's) into lines
// with their numbers.
func parsePatch(patch string) []diffLine {
	var out []diffLine
	a, b, inHunk := 0, 0, false
	for _, l := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		switch {
		case !inHunk && !strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "\\"):
			continue // the file names before the first hunk; "\ No newline"
		case strings.HasPrefix(l, "@@"):
			a, b = hunkStart(l)
			inHunk = true
			out = append(out, diffLine{Kind: "hunk", Text: l})
		case strings.HasPrefix(l, "+"):
			out = append(out, diffLine{Kind: "add", B: b, Text: l[1:]})
			b++
		case strings.HasPrefix(l, "-"):
			out = append(out, diffLine{Kind: "del", A: a, Text: l[1:]})
			a++
		default:
			out = append(out, diffLine{Kind: "ctx", A: a, B: b, Text: strings.TrimPrefix(l, " ")})
			a++
			b++
		}
	}
	return out
}

// hunkStart reads the first line numbers of "@@ -a,n +b,m @@".
func hunkStart(l string) (a, b int) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0
	}
	num := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return num(f[1]), num(f[2])
}

// sideBySide pairs a unified diff's removed and added lines into rows,
// each run of removals beside the run of additions that follows it.
func sideBySide(lines []diffLine) []splitRow {
	var out []splitRow
	for i := 0; i < len(lines); {
		l := lines[i]
		if l.Kind != "del" && l.Kind != "add" {
			out = append(out, splitRow{Left: l, Right: l})
			i++
			continue
		}
		var dels, adds []diffLine
		for ; i < len(lines) && lines[i].Kind == "del"; i++ {
			dels = append(dels, lines[i])
		}
		for ; i < len(lines) && lines[i].Kind == "add"; i++ {
			adds = append(adds, lines[i])
		}
		for j := range max(len(dels), len(adds)) {
			var row splitRow
			if j < len(dels) {
				row.Left = dels[j]
			}
			if j < len(adds) {
				row.Right = adds[j]
			}
			out = append(out, row)
		}
	}
	return out
}
