//go:build unix

package liveagents

import "testing"

// Kilo is driven as OpenCode, the project it forked, under its own
// names: kilo run, ~/.config/kilo/kilo.json, .kilo/plugins, KILO_
// variables, and kilo export for the transcript. Like OpenCode it
// installs its plugin API (@kilocode/plugin) into every folder it reads
// plugins from; at its own version, which npm does not have, so that
// without the newest one published put in place (versions.json's
// "with") each run waits about 70 seconds on npm before it starts.
func TestKilo(t *testing.T) {
	t.Parallel()
	d := &opencode{fork: openCodeFork{name: "kilo", title: "Kilo", dir: "kilo", dot: ".kilo", env: "KILO"}}
	t.Cleanup(func() {
		if d.registry != nil {
			d.registry.Close()
		}
	})
	runScenario(t, d)
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.fetched) > 0 {
		t.Errorf("Kilo asked the npm registry for %v: the scenario is not offline", d.fetched)
	}
}
