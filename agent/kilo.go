package agent

// Kilo is Kilo Code's CLI, a fork of OpenCode that keeps its sessions,
// plugins and export as OpenCode does, under names of its own: its
// sessions are rows of ~/.local/share/kilo/kilo.db, its plugins in
// .kilo/plugins or ~/.config/kilo/plugins, and kilo export prints
// OpenCode's document, whose info.version (7 and on) tells it from
// OpenCode's. Its adapter is OpenCode's (see opencode.go).
var kiloFork = openCodeFork{name: "kilo", title: "Kilo", dot: ".kilo", dir: "kilo", env: "KILO", bin: "kilo"}

func init() {
	register(Registration{New: newKilo, Info: Info{
		Name:     "kilo",
		Title:    "Kilo",
		Settings: ".kilo/plugins/git-snap.js (--project, the default) or ~/.config/kilo/plugins/git-snap.js (--user)",
	}})
}

func newKilo(env Env) Adapter { return newOpenCodeFork(env, &kiloFork) }

// forkEndpoint is ModelEndpoint for a fork: a provider in its config.
func (o OpenCode) forkEndpoint(url string) string {
	f := o.f()
	return `"provider": {"replay": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "` + url + `/v1", "apiKey": "replay"},
  "models": {"<the recorded model>": {"tool_call": true}}}}     # in ~/.config/` + f.dir + `/` + f.dir + `.json, then:
` + f.env + `_DISABLE_MODELS_FETCH=1 ` + f.bin + ` run -m replay/<the recorded model> …`
}
