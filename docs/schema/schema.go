// Package schema holds the JSON Schemas of git-snap's --json outputs
// (docs/json.md), embedded so that the command line reads each output's
// fields from them (--json FIELD,…) and tests check outputs against them.
package schema

import "embed"

// FS holds every *.schema.json of this directory.
//
//go:embed *.schema.json
var FS embed.FS
