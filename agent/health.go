package agent

import "strings"

// Status is how a Check came out.
type Status int

// Statuses of a check, from good to bad.
const (
	OK   Status = iota
	Warn        // capture may not work: said, with what to do
	Fail        // capture does not work
)

// String names the status as doctor prints it.
func (s Status) String() string {
	return [...]string{"ok", "warn", "FAIL"}[s]
}

// MarshalText writes the status by its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(strings.ToLower(s.String())), nil }

// Check is one thing capture needs, as doctor and install report it.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`        // what was found
	Fix    string `json:"fix,omitempty"` // what to do, when not OK
}

// Needer is an Installer whose agent needs more than git-snap's hooks in
// its settings before they run: a feature flag, the project's trust. An
// adapter that implements it has its needs printed by install and
// checked by doctor.
type Needer interface {
	// Needs checks what the agent needs for the hooks in hooksFile to
	// run, for the project at workTree ("" for none).
	Needs(hooksFile, workTree string) []Check
}
