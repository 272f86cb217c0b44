package render

import (
	"slices"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/doctor"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/storage"
)

// HitJSON is one line search found.
type HitJSON struct {
	Session    string   `json:"session"`
	Snapshot   string   `json:"snapshot"` // the first snapshot that held the message
	Seq        int      `json:"seq"`
	Message    *int     `json:"message"` // the message's index; null for a file path
	Role       *string  `json:"role"`
	Field      string   `json:"field"` // text, thinking, tool_input, tool_result or path
	Tool       *string  `json:"tool"`
	Line       string   `json:"line"`
	LineNumber int      `json:"line_number"` // in the field's text, from 1
	Match      [][2]int `json:"match"`       // byte offsets in line
	Time       *string  `json:"time"`
}

// HitSessionJSON is a session with hits: how many lines were found,
// null when search -l stopped at its first.
type HitSessionJSON struct {
	Session string `json:"session"`
	Hits    *int   `json:"hits"`
}

// SearchJSON is search --json: the lines found (none with -l, which asks
// for sessions only), and the sessions they are in, in the order found.
type SearchJSON struct {
	SchemaVersion int              `json:"schema_version"`
	Hits          []HitJSON        `json:"hits"`
	Sessions      []HitSessionJSON `json:"sessions"`
}

// NewSearchJSON is search --json of hits; sessionsOnly is -l.
func NewSearchJSON(hits []search.Hit, sessionsOnly bool) SearchJSON {
	out := SearchJSON{SchemaVersion, []HitJSON{}, []HitSessionJSON{}}
	for _, h := range HitCounts(hits) {
		n := h.Hits
		s := HitSessionJSON{Session: h.Session, Hits: &n}
		if sessionsOnly {
			s.Hits = nil
		}
		out.Sessions = append(out.Sessions, s)
	}
	if sessionsOnly {
		return out
	}
	for _, h := range hits {
		j := HitJSON{Session: h.Session, Snapshot: h.Snapshot, Seq: h.Seq, Role: nullable(h.Role), Field: h.Field,
			Tool: nullable(h.Tool), Line: h.Line, LineNumber: h.LineNumber, Match: h.Match, Time: TimeJSON(h.Time)}
		if h.Message >= 0 {
			m := h.Message
			j.Message = &m
		}
		if j.Match == nil {
			j.Match = [][2]int{}
		}
		out.Hits = append(out.Hits, j)
	}
	return out
}

// HitCount is a session and the number of lines found in it.
type HitCount struct {
	Session string
	Hits    int
}

// HitCounts counts hits by session, in the order the sessions come.
func HitCounts(hits []search.Hit) []HitCount {
	var out []HitCount
	for _, h := range hits {
		i := slices.IndexFunc(out, func(c HitCount) bool { return c.Session == h.Session })
		if i < 0 {
			out = append(out, HitCount{Session: h.Session})
			i = len(out) - 1
		}
		out[i].Hits++
	}
	return out
}

// CheckpointSetJSON is checkpoint NAME --json and checkpoint --delete
// --json: the checkpoint made, moved or deleted.
type CheckpointSetJSON struct {
	SchemaVersion int            `json:"schema_version"`
	Action        string         `json:"action"` // "set" or "deleted"
	Checkpoint    CheckpointJSON `json:"checkpoint"`
}

// NewCheckpointSetJSON is checkpoint NAME --json (action "set") or
// --delete --json ("deleted").
func NewCheckpointSetJSON(action string, cp storage.Checkpoint) CheckpointSetJSON {
	return CheckpointSetJSON{SchemaVersion, action, NewCheckpointsJSON([]storage.Checkpoint{cp}).Checkpoints[0]}
}

// DoctorJSON is doctor --json.
type DoctorJSON struct {
	SchemaVersion int               `json:"schema_version"`
	Agents        []DoctorAgentJSON `json:"agents"`
	Repository    []CheckJSON       `json:"repository"`
	LastErrors    []HookErrorJSON   `json:"last_errors"`
	Broken        bool              `json:"broken"`
}

// DoctorAgentJSON is one agent's part of doctor --json.
type DoctorAgentJSON struct {
	Agent     string              `json:"agent"`
	Verdict   string              `json:"verdict"`
	Broken    bool                `json:"broken"`
	Installed []DoctorInstallJSON `json:"installed"`
	Checks    []CheckJSON         `json:"checks"`
	LastCall  *HookCallJSON       `json:"last_call"`
}

// DoctorInstallJSON is a settings file that holds git-snap's hooks.
type DoctorInstallJSON struct {
	File     string   `json:"file"`
	Commands []string `json:"commands"`
	Events   []string `json:"events"`
}

// CheckJSON is one check doctor made.
type CheckJSON struct {
	Name   string  `json:"name"`
	Status string  `json:"status"`
	Detail string  `json:"detail"`
	Fix    *string `json:"fix"`
}

// HookCallJSON is the last hook call the hook log records.
type HookCallJSON struct {
	Time      *string `json:"time"`
	Event     string  `json:"event"`
	LatencyNS int64   `json:"latency_ns"`
	OK        bool    `json:"ok"`
}

// HookErrorJSON is a failure the hook log records.
type HookErrorJSON struct {
	Time    *string `json:"time"`
	Agent   string  `json:"agent"`
	Message string  `json:"message"`
}

// NewDoctorJSON is doctor --json of r.
func NewDoctorJSON(r doctor.Report) DoctorJSON {
	checks := func(in []agent.Check) []CheckJSON {
		out := []CheckJSON{}
		for _, c := range in {
			out = append(out, CheckJSON{c.Name, strings.ToLower(c.Status.String()), c.Detail, nullable(c.Fix)})
		}
		return out
	}
	out := DoctorJSON{SchemaVersion: SchemaVersion, Agents: []DoctorAgentJSON{}, Repository: checks(r.Repository), LastErrors: []HookErrorJSON{}, Broken: r.Broken}
	for _, a := range r.Agents {
		j := DoctorAgentJSON{Agent: a.Agent, Verdict: a.Verdict, Broken: a.Broken, Installed: []DoctorInstallJSON{}, Checks: checks(a.Checks)}
		for _, in := range a.Installed {
			j.Installed = append(j.Installed, DoctorInstallJSON{in.File, append([]string{}, in.Commands...), append([]string{}, in.Events...)})
		}
		if c := a.LastCall; c != nil {
			j.LastCall = &HookCallJSON{TimeJSON(c.Time), c.Event, c.Latency.Nanoseconds(), c.OK}
		}
		out.Agents = append(out.Agents, j)
	}
	for _, e := range r.Errors {
		out.LastErrors = append(out.LastErrors, HookErrorJSON{TimeJSON(e.Time), e.Agent, e.Message})
	}
	return out
}
