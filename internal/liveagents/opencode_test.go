//go:build unix

package liveagents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// opencode drives OpenCode: opencode run with JSON events, which name
// the session; pointed at the stub by a provider of the
// @ai-sdk/openai-compatible kind (bundled in the binary) in the user's
// opencode.json, which it speaks Chat Completions to. Its sessions are
// rows of a database: the transcript is what opencode export prints
// after the run, and resume goes through opencode import.
//
// OpenCode installs @opencode-ai/plugin from npm into every folder it
// reads plugins from (~/.config/opencode, the project's .opencode)
// before it loads any plugin, unless node_modules is there and
// package.json's dependencies are all in package-lock.json (Npm.install
// in the binary). The suite installs the package once (versions.json's
// "with") and links it into both folders; npm_config_registry points
// OpenCode's npm at a registry on 127.0.0.1 that counts the requests it
// gets, none allowed, so that the scenario touches only loopback.
type opencode struct {
	fork     openCodeFork
	mu       sync.Mutex
	registry *httptest.Server
	fetched  []string // what OpenCode asked the registry for
}

// openCodeFork is OpenCode, or a fork of it that is driven alike under
// names of its own (Kilo).
type openCodeFork struct {
	name  string // git-snap's name for it
	title string
	dir   string // its folder under ~/.config, and its config file's name
	dot   string // the project's folder
	env   string // the prefix of its variables
}

var openCodeItself = openCodeFork{name: "opencode", title: "OpenCode", dir: "opencode", dot: ".opencode", env: "OPENCODE"}

// openCodeModel is the model the scenario asks for: one with a price.
const openCodeModel = "gpt-4.1"

func TestOpenCode(t *testing.T) {
	t.Parallel()
	d := &opencode{fork: openCodeItself}
	t.Cleanup(func() {
		if d.registry != nil {
			d.registry.Close()
		}
	})
	runScenario(t, d)
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.fetched) > 0 {
		t.Errorf("%s asked the npm registry for %v: the scenario is not offline", d.fork.title, d.fetched)
	}
}

func (d *opencode) name() string { return d.fork.name }
func (*opencode) api() string    { return "openai-chat" }

// configure writes the provider, and puts the plugin API where OpenCode
// installs it: the user's config folder and the scenario repository's
// .opencode (git snap install writes its plugin there).
func (d *opencode) configure(w *world, url string) []string {
	d.mu.Lock()
	if d.registry == nil {
		d.registry = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			d.mu.Lock()
			d.fetched = append(d.fetched, r.URL.Path)
			d.mu.Unlock()
			http.Error(rw, "the live-agent suite is offline", http.StatusServiceUnavailable)
		}))
	}
	registry := d.registry.URL
	d.mu.Unlock()
	config := filepath.Join(w.home, ".config", d.fork.dir)
	writeFile(w.t, filepath.Join(config, d.fork.dir+".json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"stub": {"npm": "@ai-sdk/openai-compatible", "name": "Stub",
    "options": {"baseURL": "%s/v1", "apiKey": "sk-live-suite"},
    "models": {"%s": {"name": "Stub model", "tool_call": true}}}},
  "model": "stub/%s",
  "autoupdate": false,
  "share": "disabled"
}
`, url, openCodeModel, openCodeModel))
	for _, dir := range []string{config, filepath.Join(w.repo, d.fork.dot)} {
		d.placePlugin(w, dir)
	}
	env := []string{"npm_config_registry=" + registry + "/"}
	for _, v := range []string{"DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE", "DISABLE_LSP_DOWNLOAD", "DISABLE_SHARE", "DISABLE_SESSION_INGEST",
		"DISABLE_PRESENCE", "DISABLE_CODEBASE_INDEXING"} {
		env = append(env, d.fork.env+"_"+v+"=1")
	}
	return env
}

// placePlugin puts the installed @opencode-ai/plugin in dir as OpenCode
// would: its package.json and package-lock.json, and node_modules (a
// link to the installed one); then reads the package back from there, as
// OpenCode resolves it, to check it is the pinned version.
func (*opencode) placePlugin(w *world, dir string) {
	for _, entry := range w.pin.With {
		with, version := w.pin.withVersion(entry)
		from := installPackage(w.t, with, version, filepath.Join("node_modules", filepath.FromSlash(with), "package.json"))
		must(w.t, os.MkdirAll(dir, 0o755))
		for _, f := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join(from, f))
			must(w.t, err)
			must(w.t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
		}
		if _, err := os.Lstat(filepath.Join(dir, "node_modules")); os.IsNotExist(err) {
			must(w.t, os.Symlink(filepath.Join(from, "node_modules"), filepath.Join(dir, "node_modules")))
		}
		var got struct {
			Version string `json:"version"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(with), "package.json"))
		must(w.t, err)
		must(w.t, json.Unmarshal(data, &got))
		var deps struct {
			Dependencies map[string]string `json:"dependencies"`
		}
		data, err = os.ReadFile(filepath.Join(dir, "package.json"))
		must(w.t, err)
		must(w.t, json.Unmarshal(data, &deps))
		if got.Version != version || deps.Dependencies[with] != version {
			w.t.Fatalf("%s holds %s %s (package.json asks %q), not %s", dir, with, got.Version, deps.Dependencies[with], version)
		}
	}
}

// session reads the session id of opencode run's JSON events; an error
// event fails the test.
func (*opencode) session(w *world, r result) string {
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 16<<20)
	id := ""
	for sc.Scan() {
		var ev struct {
			Type      string          `json:"type"`
			SessionID string          `json:"sessionID"`
			Error     json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Type == "error" {
			w.t.Fatalf("%s run: %s\n%s", w.d.name(), ev.Error, r.stderr)
		}
		id = ev.SessionID
	}
	if id == "" {
		w.t.Fatalf("%s run named no session:\n%.2000s\n%s", w.d.name(), r.stdout, r.stderr)
	}
	return id
}

func (d *opencode) start(w *world, dir, prompt string) string {
	return d.session(w, w.runAgent(dir, "run", "--auto", "--format", "json", "-m", "stub/"+openCodeModel, prompt))
}

func (d *opencode) resume(w *world, dir, session, prompt string) {
	if got := d.session(w, w.runAgent(dir, "run", "-s", session, "--auto", "--format", "json", "-m", "stub/"+openCodeModel, prompt)); got != session {
		w.t.Fatalf("%s run -s %s went on in session %s", w.d.name(), session, got)
	}
}

func (*opencode) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "bash", Input: map[string]any{"command": command, "description": "Write hello.txt"}}
}

// transcript is what opencode export prints of the session now, in the
// world's HOME, kept in a file named as git-snap names an export.
func (*opencode) transcript(w *world, session string) string {
	r := w.run(w.t, w.repo, w.agent, "export", "--pure", session)
	path := filepath.Join(w.root, "export-"+filepath.Base(w.home), session+".json")
	writeFile(w.t, path, r.stdout)
	return path
}

// events: the plugin's calls, then the one git snap hook makes separately
// once OpenCode has exited, from opencode export. The plugin's
// session.idle call is not among them: opencode run exits at
// session.idle, and its call, which reads the session through OpenCode's
// server first, is cut short as often as not (seen: none in the third of
// three runs); what it would have recorded, the export has.
func (*opencode) events(tool bool) []string {
	if tool {
		return []string{"tool.execute.after", "dispose", "export"}
	}
	return []string{"dispose", "export"}
}

// gates: OpenCode loads no plugin with OPENCODE_PURE set, and not the
// project's with OPENCODE_DISABLE_PROJECT_CONFIG; each is set in turn
// for doctor and the agent.
func (d *opencode) gates(w *world) []gate {
	f := d.fork
	plugin := filepath.Join(w.repo, f.dot, "plugins", "git-snap.js")
	set := func(v string) func() { return func() { w.env = append(w.env, v) } }
	unset := func(v string) func() {
		return func() { w.env = slices.DeleteFunc(w.env, func(e string) bool { return e == v }) }
	}
	return []gate{
		{name: f.env + "_PURE", close: set(f.env + "_PURE=1"), reopen: unset(f.env + "_PURE=1"),
			detail: f.env + "_PURE is set: " + f.title + " loads no external plugin, git-snap's " + plugin + " among them",
			fix:    "unset " + f.env + "_PURE (and run " + f.name + " without --pure)"},
		{name: f.env + "_DISABLE_PROJECT_CONFIG", close: set(f.env + "_DISABLE_PROJECT_CONFIG=true"), reopen: unset(f.env + "_DISABLE_PROJECT_CONFIG=true"),
			detail: f.env + "_DISABLE_PROJECT_CONFIG is set: " + f.title + " does not read " + filepath.Join(w.repo, f.dot) + ", nor git-snap's plugin in it",
			fix:    "unset " + f.env + "_DISABLE_PROJECT_CONFIG, or git snap install " + f.name + " --user"},
	}
}

// resumeCommand is the command git snap resume prints for OpenCode (or
// its fork).
func (d *opencode) resumeCommand() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^    ` + d.fork.name + ` import (\S+) && cd (\S+) && ` + d.fork.name + ` --session (\S+)$`)
}

// imported: git snap resume wrote the session's export where it says
// (the session as restore gives it back) and printed how to import and
// open it; the import is run as printed. That OpenCode then goes on from
// the whole conversation, and exports it whole after the third prompt,
// the scenario checks next.
func (d *opencode) imported(w *world, out, session string) {
	m := d.resumeCommand().FindStringSubmatch(out)
	want := filepath.Join(w.home, ".local", "share", d.fork.dir, "git-snap", session+".json")
	if m == nil || m[1] != want || m[2] != w.repo || m[3] != session || !strings.Contains(out, "wrote         "+want+"\n") {
		w.t.Fatalf("git snap resume did not write %s and print how to import it:\n%s", want, out)
	}
	written, err := os.ReadFile(want)
	must(w.t, err)
	jsonlEqual(w.t, "what git snap resume wrote", string(written), w.gitSnap(0, "restore", session, "--format", d.fork.name))
	w.runAgent(w.repo, "import", want)
}

// recorded: OpenCode reads Chat Completions usage with
// @ai-sdk/openai-compatible, which takes prompt_tokens and
// prompt_tokens_details.cached_tokens and no cache writes: what it
// records as input (tokens.input) is the prompt less the cached part,
// the cache writes in it.
func (*opencode) recorded(u modelapi.Usage) modelapi.Usage {
	return modelapi.Usage{Input: u.Input + u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}
}

func (*opencode) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + openCodeModel + `","stream":false,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
