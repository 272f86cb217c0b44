package liveagents

import (
	_ "embed" // versions.json
	"encoding/json"
)

// versionsJSON pins each agent's npm package at the version the suite
// runs: the newest it verified.
//
//go:embed versions.json
var versionsJSON []byte

// Pin is an agent's npm package at the version the suite runs.
type Pin struct {
	Package string `json:"package"`
	Version string `json:"version"`
	Bin     string `json:"bin"` // its executable under node_modules/.bin
	// With are packages the agent installs for itself from npm on its
	// first run (OpenCode: its plugin API, in every folder it reads
	// plugins from), at the agent's version unless one is named
	// (pkg@version: Kilo asks for @kilocode/plugin at its own version,
	// which npm does not have): the suite installs them separately, and the
	// driver puts them where the agent looks, so that the scenario runs
	// offline.
	With []string `json:"with"`
	// Beside are packages installed with the agent, in its folder, each
	// pkg@version: the native binary Droid's shim runs, whose version
	// differs from the shim's (npm cannot install its optional
	// dependency at the shim's version, which was not published).
	Beside []string `json:"beside"`
}

// Pins are the versions the suite runs, by git-snap's name for the agent:
// what doctor compares an installed agent with.
func Pins() (map[string]Pin, error) {
	var pins map[string]Pin
	err := json.Unmarshal(versionsJSON, &pins)
	return pins, err
}
