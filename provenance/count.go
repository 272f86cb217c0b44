package provenance

import (
	"cmp"
	"slices"

	"github.com/git-snap/git-snap/storage"
)

// Tally counts lines by who wrote them: what a pull request's summary,
// stats --lines and blame --json say of a change.
type Tally struct {
	Lines int
	Kinds map[Kind]int
	// Sessions count each session's lines (agent's and mixed), the
	// most first.
	Sessions []SessionTally
	// Models count the agents' lines (and mixed) by model, the most
	// first; Share is of all the lines counted.
	Models []ModelTally
}

// SessionTally is one session's lines.
type SessionTally struct {
	Session, Remote, Agent string
	Lines                  int
	// Latest is the newest of the session's edits counted.
	Latest storage.ID
	Models []ModelTally
}

// ModelTally is one model's lines.
type ModelTally struct {
	Model string // "" when not known
	Lines int
	Share float64
}

// Count adds up the lines of files.
func Count(files []*File) Tally {
	t := Tally{Kinds: map[Kind]int{}}
	sessions := map[[2]string]*SessionTally{}
	latest := map[[2]string]*Edit{}
	models := map[string]int{}
	bySession := map[[2]string]map[string]int{}
	for _, f := range files {
		for _, l := range f.Lines {
			t.Lines++
			t.Kinds[l.Kind]++
			e := l.Edit
			if e == nil {
				continue
			}
			key := [2]string{e.Session, e.Remote}
			st := sessions[key]
			if st == nil {
				st = &SessionTally{Session: e.Session, Remote: e.Remote, Agent: e.Agent}
				sessions[key], bySession[key] = st, map[string]int{}
			}
			st.Lines++
			if le := latest[key]; le == nil || e.Time.After(le.Time) || e.Time.Equal(le.Time) && e.Seq > le.Seq {
				latest[key], st.Latest = e, e.Snapshot
			}
			models[e.Model]++
			bySession[key][e.Model]++
		}
	}
	t.Models = modelTallies(models, t.Lines)
	for key, st := range sessions {
		st.Models = modelTallies(bySession[key], st.Lines)
		t.Sessions = append(t.Sessions, *st)
	}
	slices.SortFunc(t.Sessions, func(a, b SessionTally) int {
		return cmp.Or(b.Lines-a.Lines, cmp.Compare(a.Session, b.Session), cmp.Compare(a.Remote, b.Remote))
	})
	return t
}

func modelTallies(m map[string]int, total int) []ModelTally {
	var out []ModelTally
	for model, n := range m {
		out = append(out, ModelTally{Model: model, Lines: n, Share: float64(n) / float64(max(total, 1))})
	}
	slices.SortFunc(out, func(a, b ModelTally) int { return cmp.Or(b.Lines-a.Lines, cmp.Compare(a.Model, b.Model)) })
	return out
}
