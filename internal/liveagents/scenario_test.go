//go:build unix

package liveagents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/modelapi"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// driver is one agent CLI as the scenario drives it; each agent's file
// makes one and runs runScenario with it.
type driver interface {
	// name is git-snap's name for the agent, and its key in versions.json.
	name() string
	// api is the model API the agent speaks (a modelapi name).
	api() string
	// configure points the agent, in the world's HOME, at the model server
	// at url: it writes the agent's config files there and returns the
	// variables the agent needs.
	configure(w *world, url string) []string
	// start runs prompt as a new session in dir and returns its id.
	start(w *world, dir, prompt string) string
	// resume runs prompt in session, in dir, with the agent's own resume.
	resume(w *world, dir, session, prompt string)
	// shell is the tool call that runs command with the agent's shell tool.
	shell(id, command string) modelapi.ToolCall
	// transcript is session's main transcript in the world's HOME.
	transcript(w *world, session string) string
	// events are the hook events a prompt fires, with one tool call or
	// without.
	events(tool bool) []string
	// gates are what the agent needs beside its hooks file for them to
	// run, each closed in turn after install.
	gates(w *world) []gate
	// probe is a request to the agent's API holding another prompt than
	// the recording's first.
	probe() (path, body string)
}

// gate is one thing an agent needs before git-snap's hooks run.
type gate struct {
	name          string
	close, reopen func()
	// detail and fix are what doctor must say with it closed.
	detail, fix string
	// refused, when set, runs the agent with the gate closed for an agent
	// that then does not run at all (headless Gemini CLI in a folder it
	// does not trust): "" when it refused as it should, else what it did.
	refused func() string
}

// importer is a driver whose agent keeps its sessions where git snap
// resume writes no file it reads (OpenCode: its database): imported
// checks what git snap resume printed (out) and does what it says
// before the agent's own resume.
type importer interface {
	imported(w *world, out, session string)
}

// oneRun is a driver whose agent cannot go on with a session headless
// and offline (Cline continues one only in its interactive UI; droid
// exec -s fetches it from Factory's servers): the scenario runs its
// first prompt alone, checks what git snap resume writes instead of the
// agent's own resume, and replays that prompt. noResume says why.
type oneRun interface {
	noResume() string
}

// prompts is how many prompts of the scenario the driver runs.
func prompts(d driver) int {
	if _, ok := d.(oneRun); ok {
		return 1
	}
	return 3
}

// usageReader is a driver whose agent records less of a reply's usage
// than the stub sends (OpenCode reads no cache writes over Chat
// Completions): recorded is what it can record of u, what stats is
// checked against.
type usageReader interface {
	recorded(u modelapi.Usage) modelapi.Usage
}

// The scenario: a prompt that makes one shell tool call, a second prompt
// in the same session, and a third after git snap resume into a fresh
// HOME. Tokens differ in every step and kind, so that a mix-up shows.
const (
	prompt1 = "Write hello.txt with the shell."
	prompt2 = "How many lines does hello.txt hold?"
	prompt3 = "What have you done so far?"
	command = `printf 'hello from the live suite\n' > hello.txt`
	hello   = "hello from the live suite\n"
	callID  = "call_gitsnap_live_1"
)

// steps are the stub's replies to the recorded conversation, in order:
// for a driver that runs one prompt, the first two.
func steps(d driver) []modelapi.Step {
	all := []modelapi.Step{
		{Prompt: prompt1, Reply: modelapi.Reply{ToolCalls: []modelapi.ToolCall{d.shell(callID, command)}, Usage: modelapi.Usage{Input: 1201, CacheRead: 2301, CacheWrite: 3401, Output: 41}}},
		{Results: []string{callID}, Reply: modelapi.Reply{Text: "I wrote hello.txt.", Usage: modelapi.Usage{Input: 1103, CacheRead: 2203, CacheWrite: 3303, Output: 43}}},
		{Prompt: prompt2, Reply: modelapi.Reply{Text: "It holds one line.", Usage: modelapi.Usage{Input: 1005, CacheRead: 2105, CacheWrite: 3205, Output: 45}}},
		{Prompt: prompt3, Reply: modelapi.Reply{Text: "I wrote hello.txt and counted its lines.", Usage: modelapi.Usage{Input: 907, CacheRead: 2007, CacheWrite: 3107, Output: 47}}},
	}
	if prompts(d) == 1 {
		return all[:2]
	}
	return all
}

// world is one run of the scenario: a repository, a HOME, the stub.
type world struct {
	t      *testing.T
	d      driver
	pin    pin
	agent  string // the agent's executable
	root   string
	repo   string
	home   string
	env    []string // the agent's variables for home
	stub   *modelapi.Server
	script *modelapi.Script
}

func newWorld(t *testing.T, d driver) *world {
	p := pinFor(t, d.name())
	w := &world{t: t, d: d, pin: p, agent: install(t, p), root: t.TempDir()}
	t.Logf("%s@%s", p.Package, p.Version)
	w.repo = w.newRepo("repo")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	s := steps(d)
	// The gates' runs come between the second prompt and the third (after
	// the first, for a driver that runs one).
	at := len(s) - 1
	if prompts(d) == 1 {
		at = len(s)
	}
	for _, g := range d.gates(w) {
		if g.refused != nil {
			continue // no model call
		}
		gs := modelapi.Step{Prompt: gatePrompt(g), Reply: modelapi.Reply{Text: "ok", Usage: modelapi.Usage{Input: 1, Output: 1}}}
		s = slices.Insert(s, at, gs)
		at++
	}
	w.script = &modelapi.Script{Steps: s}
	var err error
	w.stub, err = modelapi.Start(ctx, d.api(), modelapi.Options{Addr: "127.0.0.1:0", Keep: true}, w.script)
	must(t, err)
	t.Cleanup(func() { w.stub.Close() })
	w.useHome("home", w.stub.URL())
	t.Cleanup(w.explain)
	return w
}

// explain logs, for a failed run, what the stub received and answered and
// what the hook log says.
func (w *world) explain() {
	if !w.t.Failed() {
		return
	}
	for i, e := range w.stub.Exchanges() {
		what := "refused: " + e.Err
		if e.Reply != nil {
			what = fmt.Sprintf("answered %q with %d tool calls", e.Reply.Text, len(e.Reply.ToolCalls))
		}
		w.t.Logf("stub request %d (%s, side %v, last input %q): %s", i+1, e.Request.Path, e.Request.Side, lastPrompt(e.Request), what)
	}
	log, _ := os.ReadFile(filepath.Join(w.repo, ".git", "snap", "hook.log"))
	w.t.Logf("hook.log:\n%s", log)
}

func gatePrompt(g gate) string { return "Say ok, with " + g.name + " closed." }

// newRepo makes a git repository with one commit under the world's root.
func (w *world) newRepo(name string) string {
	dir := filepath.Join(w.root, name)
	must(w.t, os.MkdirAll(dir, 0o755))
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		w.run(w.t, dir, "git", args...)
	}
	return dir
}

// useHome makes a fresh HOME the current one, the agent pointed at url.
func (w *world) useHome(name, url string) {
	w.home = filepath.Join(w.root, name)
	must(w.t, os.MkdirAll(w.home, 0o755))
	w.env = w.d.configure(w, url)
}

// environ is every process's environment: HOME, the built git-snap first
// on PATH, UTC (Codex names rollouts by local time), git's identity, and
// the agent's variables; nothing else of this process's.
func (w *world) environ() []string {
	env := []string{
		"HOME=" + w.home, "PATH=" + gitSnapDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TZ=UTC", "LANG=C.UTF-8", "TMPDIR=" + os.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
	}
	return append(env, w.env...)
}

func (w *world) run(t *testing.T, dir, name string, args ...string) result {
	t.Helper()
	// Ten agents starting at once on 2 cores slow each first run: Kilo's
	// took over 3 minutes so, under other work.
	r := run(t, 6*time.Minute, dir, w.environ(), name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit status %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// gitSnap runs git snap in the repository and checks its exit status.
func (w *world) gitSnap(want int, args ...string) string {
	w.t.Helper()
	r := run(w.t, time.Minute, w.repo, w.environ(), filepath.Join(gitSnapDir, "git-snap"), args...)
	if r.code != want {
		w.t.Fatalf("git snap %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r.stdout
}

// runAgent runs the agent in dir; it must succeed.
func (w *world) runAgent(dir string, args ...string) result {
	w.t.Helper()
	began := time.Now()
	r := w.run(w.t, dir, w.agent, args...)
	w.t.Logf("%s %s: %s", w.d.name(), strings.Join(args[:min(len(args), 3)], " "), time.Since(began).Round(100*time.Millisecond))
	w.waitFollowUps()
	return r
}

// waitFollowUps waits, up to 30 s, for the follow-up hook calls the run
// left behind (a call waits up to 15 s for what the agent writes after
// it) to end, so that the scenario's next step, which may resume or
// rewrite the transcript, does not race them. They are git-snap
// processes with this world's HOME; where /proc cannot say, it does not
// wait.
func (w *world) waitFollowUps() {
	home := []byte("\x00HOME=" + w.home + "\x00")
	running := func() bool {
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			cmd, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
			if err != nil || !bytes.Contains(cmd, []byte("git-snap")) || !bytes.Contains(cmd, []byte("hook")) {
				continue
			}
			env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
			if err == nil && bytes.Contains(append([]byte{0}, env...), home) {
				return true
			}
		}
		return false
	}
	for end := time.Now().Add(30 * time.Second); running(); {
		if time.Now().After(end) {
			w.t.Logf("%s: a follow-up hook call still runs after 30 s", w.d.name())
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hookCall is a line of .git/snap/hook.log.
type hookCall struct{ agent, event, outcome string }

var callLine = regexp.MustCompile(`^\S+ call (\S+) (\S+) \d+ms (ok|failed)$`)

// hookLog reads the hook log: the calls, and any line that is not one
// (a failure's message).
func (w *world) hookLog() (calls []hookCall, other []string) {
	data, err := os.ReadFile(filepath.Join(w.repo, ".git", "snap", "hook.log"))
	if err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m := callLine.FindStringSubmatch(l); m != nil {
			calls = append(calls, hookCall{m[1], m[2], m[3]})
		} else if l != "" {
			other = append(other, l)
		}
	}
	return calls, other
}

// checkHookCalls checks that the calls after the first `from` fired every
// event a prompt fires (with a tool call or without), all ok, and that the
// log holds no failure; it returns how many calls the log holds.
func (w *world) checkHookCalls(from int, tool bool, what string) int {
	w.t.Helper()
	want := w.d.events(tool)
	last := want[len(want)-1]
	var calls []hookCall
	// A hook call ends before the agent goes on, but the last may end
	// as the agent exits, or after (OpenCode's export): waited for.
	waitFor(w.t, what+": the "+last+" hook call in hook.log", 90*time.Second, func() bool {
		calls, _ = w.hookLog()
		return slices.ContainsFunc(calls[min(from, len(calls)):], func(c hookCall) bool { return c.event == last })
	})
	calls, other := w.hookLog()
	if len(other) > 0 {
		w.t.Errorf("%s: hook.log holds failures:\n%s", what, strings.Join(other, "\n"))
	}
	seen := map[string]bool{}
	for _, c := range calls[from:] {
		seen[c.event] = true
		if c.agent != w.d.name() || c.outcome != "ok" {
			w.t.Errorf("%s: hook call %+v", what, c)
		}
	}
	for _, ev := range want {
		if !seen[ev] {
			w.t.Errorf("%s: no %s hook call (calls: %+v)", what, ev, calls[from:])
		}
	}
	return len(calls)
}

// doctor runs git snap doctor AGENT and checks its verdict line.
func (w *world) doctor(status int, verdict string, more ...string) string {
	w.t.Helper()
	out := w.gitSnap(status, "doctor", w.d.name())
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w.d.name()) + ` +` + regexp.QuoteMeta(verdict)).MatchString(out) {
		w.t.Errorf("doctor %s: want the verdict %q:\n%s", w.d.name(), verdict, out)
	}
	for _, m := range more {
		if !strings.Contains(out, m) {
			w.t.Errorf("doctor %s: want %q:\n%s", w.d.name(), m, out)
		}
	}
	return out
}

// runScenario runs the scenario with an agent and checks what git-snap
// recorded against what the agent wrote and the stub sent.
func runScenario(t *testing.T, d driver) {
	if os.Getenv(switchVar) == "" {
		t.Skip("the live-agent suite runs only with " + switchVar + "=1 (or =latest)")
	}
	began := time.Now()
	w := newWorld(t, d)
	name := d.name()

	// doctor says what is true before install and after.
	w.doctor(0, "not installed (git snap install "+name+")")
	w.gitSnap(0, "install", name)
	w.doctor(0, "installed; no hook call recorded yet")
	checkHookProgram(t, w)

	// The first prompt: one shell tool call, then the answer.
	session := d.start(w, w.repo, prompt1)
	if got, err := os.ReadFile(filepath.Join(w.repo, "hello.txt")); err != nil || string(got) != hello {
		t.Fatalf("the tool call did not run: hello.txt %q, %v", got, err)
	}
	n := w.checkHookCalls(0, true, "the first prompt")
	one, isOne := d.(oneRun)
	if isOne {
		t.Logf("%s: one prompt only: %s", name, one.noResume())
	} else {
		d.resume(w, w.repo, session, prompt2)
		n = w.checkHookCalls(n, false, "the second prompt")
	}
	w.doctor(0, "ok")

	// Each gate closed: doctor says broken, with the fix, and it is true:
	// the agent runs and no hook is called.
	for _, g := range d.gates(w) {
		g.close()
		w.doctor(1, "BROKEN: ", g.detail, "fix: "+g.fix)
		if g.refused != nil {
			if msg := g.refused(); msg != "" {
				t.Errorf("with %s closed: %s", g.name, msg)
			}
		} else {
			d.start(w, w.repo, gatePrompt(g))
		}
		if calls, _ := w.hookLog(); len(calls) != n {
			t.Errorf("with %s closed, the agent still called hooks: %+v", g.name, calls[n:])
		}
		g.reopen()
		w.doctor(0, "ok")
	}

	if os.Getenv(keepVar) != "" {
		keep(t, w, d.transcript(w, session)) // OpenCode's transcript is an export it runs: only when kept
	}
	var first string // the transcript as the agent left it, in this HOME (OpenCode's and Kilo's an export they run)
	if isOne {
		first = d.transcript(w, session)
	}

	// Resumed into a fresh HOME: the agent's own resume sends the earlier
	// conversation, and git-snap goes on recording the same session.
	w.useHome("home2", w.stub.URL())
	w.gitSnap(0, "install", name) // the user's own settings in the new HOME
	out := w.gitSnap(0, "resume", session)
	if im, ok := d.(importer); ok {
		im.imported(w, out, session)
	} else if want := w.d.transcript(w, session); !strings.Contains(out, want) {
		t.Errorf("resume wrote elsewhere than %s:\n%s", want, out)
	}
	transcript := first
	if isOne {
		// The agent cannot resume it here: what resume wrote is the
		// transcript the agent wrote, for the agent to resume where it can.
		if _, ok := d.(importer); !ok {
			written, err := os.ReadFile(d.transcript(w, session))
			must(t, err)
			want, err := os.ReadFile(first)
			must(t, err)
			jsonlEqual(t, "what git snap resume wrote", string(written), string(want))
		}
	} else {
		d.resume(w, w.repo, session, prompt3)
		w.checkHookCalls(n, false, "the prompt after resume")
		checkResumeSent(t, w)
		transcript = d.transcript(w, session)
	}

	// What git-snap recorded, after the agent exited.
	checkOneSession(t, w, session)
	checkRestore(t, w, session, transcript)
	checkStats(t, w, session)

	t.Logf("%s: recorded, checked and resumed in %s", name, time.Since(began).Round(time.Second))
	checkReplay(t, w, session)
	t.Logf("%s: the whole scenario took %s", name, time.Since(began).Round(time.Second))
}

// checkResumeSent checks that the request after resume held the earlier
// conversation: both prompts, the tool call and its result.
func checkResumeSent(t *testing.T, w *world) {
	var last *modelapi.Request
	for _, e := range w.stub.Exchanges() {
		if e.Reply == nil {
			t.Errorf("the stub refused a request: %s", e.Err)
		}
		if !e.Request.Side {
			last = &e.Request
		}
	}
	if last == nil {
		t.Fatal("the stub got no request")
	}
	texts := strings.Join(last.Texts(), "\n")
	for _, want := range []string{prompt1, prompt2, prompt3} {
		if !strings.Contains(texts, want) {
			t.Errorf("the request after resume lacks %q", want)
		}
	}
	if !slices.ContainsFunc(last.Items, func(it modelapi.Item) bool { return it.Kind == modelapi.ItemToolResult && it.CallID == callID }) ||
		!slices.ContainsFunc(last.Items, func(it modelapi.Item) bool { return it.Kind == modelapi.ItemToolCall && it.CallID == callID }) {
		t.Errorf("the request after resume lacks the tool call %s and its result", callID)
	}
	if got, want := w.script.Served(), len(w.script.Steps); got != want {
		t.Errorf("the stub served %d of its %d steps", got, want)
	}
}

// checkOneSession checks that the hooks recorded one session, this one.
func checkOneSession(t *testing.T, w *world, session string) {
	var got struct {
		Sessions []struct {
			Name  string `json:"name"`
			Agent string `json:"agent"`
		} `json:"sessions"`
	}
	must(t, json.Unmarshal([]byte(w.gitSnap(0, "sessions", "--json")), &got))
	if len(got.Sessions) != 1 || got.Sessions[0].Name != session || got.Sessions[0].Agent != w.d.name() {
		t.Errorf("sessions %+v, want only %s of %s", got.Sessions, session, w.d.name())
	}
}

// checkRestore checks that restore --format gives back the transcript
// the agent wrote, line for line JSON-equal, and that --dir names it as
// the agent does.
func checkRestore(t *testing.T, w *world, session, transcript string) {
	want, err := os.ReadFile(transcript)
	must(t, err)
	// What the agent writes after its last hook call is recorded by a follow-up call
	// (Copilot CLI's last lines), by a call that may still run: waited
	// for, then what differs is said.
	restored := func() string { return w.gitSnap(0, "restore", session, "--format", w.d.name()) }
	for end := time.Now().Add(90 * time.Second); transcriptDiff(restored(), string(want)) != "" && time.Now().Before(end); {
		time.Sleep(200 * time.Millisecond)
	}
	jsonlEqual(t, "restore --format "+w.d.name(), restored(), string(want))
	dir := filepath.Join(w.root, "restored")
	w.gitSnap(0, "restore", session, "--format", w.d.name(), "--dir", dir)
	got, err := os.ReadFile(filepath.Join(dir, filepath.Base(transcript)))
	if err != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("restore --dir did not name the transcript %s: %v (wrote %v)", filepath.Base(transcript), err, entries)
	}
	jsonlEqual(t, "restore --dir", string(got), string(want))
}

// jsonlEqual checks two transcripts line for line, each line JSON-equal;
// a transcript that is one JSON document over several lines (OpenCode's
// export) is compared whole.
func jsonlEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if msg := transcriptDiff(got, want); msg != "" {
		t.Errorf("%s: %s", what, msg)
	}
}

// transcriptDiff says how got differs from want (see jsonlEqual); "" when
// it does not.
func transcriptDiff(got, want string) string {
	if a, errA := snapshot.Parse([]byte(got), snapshot.Limits{}); errA == nil && strings.Count(strings.TrimSpace(want), "\n") > 0 {
		if b, errB := snapshot.Parse([]byte(want), snapshot.Limits{}); errB == nil {
			if !snapshot.Equal(a, b) {
				return fmt.Sprintf("the document differs:\n got %.600s\nwant %.600s", got, want)
			}
			return ""
		}
	}
	g, w := lines(got), lines(want)
	if len(g) != len(w) {
		return fmt.Sprintf("%d lines, the agent wrote %d", len(g), len(w))
	}
	for i := range w {
		a, errA := snapshot.Parse([]byte(g[i]), snapshot.Limits{})
		b, errB := snapshot.Parse([]byte(w[i]), snapshot.Limits{})
		if errA != nil || errB != nil || !snapshot.Equal(a, b) {
			return fmt.Sprintf("line %d differs:\n got %.300s\nwant %.300s", i+1, g[i], w[i])
		}
	}
	return ""
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// checkStats checks that stats says exactly what the stub sent in the
// session: its model calls and their tokens of each kind, the one tool
// call, the three prompts, the messages a person counts (the prompts,
// the tool call and its result, the three answers), and the cost at the
// price of the model the stub answered as.
func checkStats(t *testing.T, w *world, session string) {
	var got map[string]any
	must(t, json.Unmarshal([]byte(w.gitSnap(0, "stats", session, "--json")), &got))
	var sent modelapi.Usage
	model := ""
	calls := 0
	for _, e := range w.stub.Exchanges() {
		if e.Reply == nil || e.Request.Side || gateRun(e.Request) {
			continue // the gates' runs are sessions git-snap did not see
		}
		u := e.Reply.Usage
		if r, ok := w.d.(usageReader); ok {
			u = r.recorded(u)
		}
		sent.Add(u)
		model = e.Reply.Model
		calls++
	}
	p, ok := prices.Default().Lookup(model)
	if !ok {
		t.Fatalf("the stub answered as %q, which has no price", model)
	}
	atto, _ := new(big.Float).SetInt(p.Atto(snapshot.Usage{Input: sent.Input, CacheRead: sent.CacheRead, CacheWrite: sent.CacheWrite, Output: sent.Output})).Float64()
	cost := atto / 1e18
	want := map[string]float64{
		"sessions": 1, "model_calls": float64(calls), "tool_calls": 1, "tool_failures": 0,
		"turns": float64(prompts(w.d)), "messages": float64(2 + 2*prompts(w.d)),
		"input_tokens": float64(sent.Input), "cache_read_tokens": float64(sent.CacheRead),
		"cache_write_tokens": float64(sent.CacheWrite), "output_tokens": float64(sent.Output),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stats %s = %v, the stub sent %v", k, got[k], v)
		}
	}
	c, _ := got["cost"].(map[string]any)
	// Money is rounded once, to the micro-dollar: within half of one.
	if micros, _ := c["usd_micros"].(float64); math.Abs(micros-cost*1e6) > 0.5+1e-6 || c["unknown_models"] != nil && len(c["unknown_models"].([]any)) > 0 {
		t.Errorf("stats cost %v, want $%.7f at %s's price", c, cost, model)
	}
}

// gateRun reports whether a request is of a gate's run: its prompt is
// among what the request adds (Copilot CLI puts the date before it, Kilo
// its environment's details after it).
func gateRun(r modelapi.Request) bool {
	for _, it := range r.Tail() {
		if it.Kind == modelapi.ItemText && it.Role == "user" && strings.Contains(it.Text, "Say ok, with ") {
			return true
		}
	}
	return false
}

// lastPrompt is the last user text a request sends.
func lastPrompt(r modelapi.Request) string {
	p := ""
	for _, it := range r.Tail() {
		if it.Kind == modelapi.ItemText && it.Role == "user" {
			p = it.Text
		}
	}
	return p
}

// checkReplay serves the recorded session with git snap replay --serve,
// has the agent re-run it from a fresh HOME in a fresh repository, and
// checks that it made the same tool call (the same file) and that every
// recorded model call was served; a request that is not the recording's
// gets an error naming the step.
func checkReplay(t *testing.T, w *world, session string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, filepath.Join(gitSnapDir, "git-snap"), "replay", "--serve", session)
	srv.Dir, srv.Env = w.repo, w.environ()
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	srv.Cancel = func() error { return syscall.Kill(-srv.Process.Pid, syscall.SIGKILL) }
	srv.WaitDelay = 5 * time.Second
	stdout, err := srv.StdoutPipe()
	must(t, err)
	var stderr strings.Builder
	srv.Stderr = &stderr
	must(t, srv.Start())
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, stdout) // the rest: what to point the agent at
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("replay --serve printed no address in 30s")
	}
	url := strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("replay --serve said %q", line)
	}

	// Another conversation than the recording's is refused, naming the
	// step and the kind of input expected but quoting nothing recorded:
	// whoever reaches the server must not read the session through it.
	path, body := w.d.probe()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	must(t, err)
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	steps := len(steps(w.d))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), fmt.Sprintf("does not match step 1 of %d: the recording has another prompt next", steps)) || strings.Contains(string(msg), prompt1) {
		t.Errorf("a request that is not the recording's: %d %s", resp.StatusCode, msg)
	}

	// The agent re-runs the session from its prompts alone.
	repo := w.newRepo("replayed")
	w.useHome("replay-home", url)
	again := w.d.start(w, repo, prompt1)
	if prompts(w.d) > 1 {
		w.d.resume(w, repo, again, prompt2)
		w.d.resume(w, repo, again, prompt3)
	}
	if got, err := os.ReadFile(filepath.Join(repo, "hello.txt")); err != nil || string(got) != hello {
		t.Errorf("the replayed run left hello.txt %q, %v; the recorded one %q", got, err, hello)
	}
	must(t, srv.Process.Signal(os.Interrupt))
	if err := srv.Wait(); err != nil {
		t.Errorf("replay --serve: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("served %d of %d model calls", steps, steps)) {
		t.Errorf("replay --serve did not serve every recorded call:\n%s", stderr.String())
	}
}

// keepVar names the folder keep copies the transcripts to.
const keepVar = "GIT_SNAP_LIVE_AGENTS_KEEP"

// keep copies the transcript of the first two prompts (the first, for a
// driver that runs one), as the agent wrote it, to
// $GIT_SNAP_LIVE_AGENTS_KEEP/<agent>/ when that is set: how the
// transcripts in testdata/live were made.
func keep(t *testing.T, w *world, transcript string) {
	dir := os.Getenv(keepVar)
	if dir == "" {
		return
	}
	// The files of the session beside it (Droid's <id>.settings.json)
	// with it.
	stem := strings.TrimSuffix(transcript, filepath.Ext(transcript))
	files, _ := filepath.Glob(stem + ".*")
	for _, f := range append(files, transcript) {
		data, err := os.ReadFile(f)
		must(t, err)
		writeFile(t, filepath.Join(dir, w.d.name(), filepath.Base(f)), string(data))
		t.Logf("kept %s", filepath.Join(dir, w.d.name(), filepath.Base(f)))
	}
}

// checkHookProgram checks the hook commands install wrote, as doctor
// reads them: personal settings run the hook program built beside
// git-snap, files a team shares run git-snap hook from PATH.
func checkHookProgram(t *testing.T, w *world) {
	t.Helper()
	name := w.d.name()
	var r struct {
		Agents []struct {
			Installed []struct {
				File     string   `json:"file"`
				Commands []string `json:"commands"`
			} `json:"installed"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(w.gitSnap(0, "doctor", name, "--json")), &r); err != nil || len(r.Agents) != 1 || len(r.Agents[0].Installed) == 0 {
		t.Fatalf("doctor %s --json: %v %+v", name, err, r)
	}
	a, err := agent.Lookup(name, agent.Env{Home: w.home})
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := a.SettingsFile(agent.ProjectScope, w.repo)
	for _, in := range r.Agents[0].Installed {
		want := filepath.Join(gitSnapDir, agent.HookProgram) + " " + name
		if in.File == shared {
			want = "git-snap hook " + name
		}
		for _, c := range in.Commands {
			if c != want && !strings.HasPrefix(c, want+" ") {
				t.Errorf("%s runs %q, want %q", in.File, c, want)
			}
		}
	}
}
