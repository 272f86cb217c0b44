package doctor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/internal/liveagents"
)

// checkVersion reports the agent's installed version next to the newest
// version the live-agent suite verified (internal/liveagents/versions.json),
// and warns when the installed one is newer, since capture was not
// verified with it. The version is read from the npm package holding the
// executable found on PATH. An agent not found there, or not installed
// from npm, is not checked.
func checkVersion(name string, o Options) (agent.Check, bool) {
	pins, err := liveagents.Pins()
	pin, ok := pins[name]
	if err != nil || !ok || o.LookPath == nil {
		return agent.Check{}, false
	}
	path, err := o.LookPath(pin.Bin)
	if err != nil {
		return agent.Check{}, false
	}
	installed := packageVersion(path, pin.Package)
	c := agent.Check{Name: name + " version", Status: agent.OK}
	switch {
	case installed == "":
		c.Detail = fmt.Sprintf("%s is not the npm package %s: its version is unknown; the live-agent suite verified %s", path, pin.Package, pin.Version)
	case newer(installed, pin.Version):
		c.Detail = fmt.Sprintf("%s %s installed (%s), newer than %s, the newest the live-agent suite verified: capture may differ; git snap doctor and the hook log say when it does", pin.Package, installed, path, pin.Version)
	default:
		c.Detail = fmt.Sprintf("%s %s installed (%s); the live-agent suite verified %s", pin.Package, installed, path, pin.Version)
	}
	return c, true
}

// packageVersion returns the version of the npm package pkg that holds
// the executable at path (following the links npm makes), or "" when no
// such package holds it.
func packageVersion(path, pkg string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var p struct{ Name, Version string }
		if json.Unmarshal(data, &p) == nil && p.Name == pkg {
			return p.Version
		}
		if filepath.Base(dir) == "node_modules" {
			break
		}
	}
	return ""
}

// newer reports whether version a is after b, comparing their dotted
// numbers (a pre-release suffix after '-' is ignored).
func newer(a, b string) bool {
	as, bs := strings.Split(strings.SplitN(a, "-", 2)[0], "."), strings.Split(strings.SplitN(b, "-", 2)[0], ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := 0, 0
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x > y
		}
	}
	return false
}
