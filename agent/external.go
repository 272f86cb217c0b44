package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// An agent git-snap does not know is added by a program of its own on
// PATH, git-snap-agent-NAME, in the spirit of git's remote helpers: each
// request is one run of it, a JSON object on its stdin naming the
// protocol's version and an operation, answered by one JSON object on
// its stdout ({"error": "…"} for a refusal). docs/agents.md describes
// the operations; External is the adapter that asks them.
const (
	// ExternalPrefix begins the name of an agent's program.
	ExternalPrefix = "git-snap-agent-"
	// ExternalProtocol is the protocol's version, sent with each request
	// and answered by identify.
	ExternalProtocol = 1
	// viewKey is the member git-snap adds to a record an external agent
	// read, holding the record's view as the program gave it: stats,
	// trace and show read it without running the program, and restore
	// takes it off again.
	viewKey = "git-snap:view"
)

// externalTimeout bounds one request: a hook call waits for it.
const externalTimeout = 15 * time.Second

// externalMaxAnswer bounds what a program may print for one request, so
// that a broken or hostile one cannot fill memory: a transcript's records
// (read) or their file (write) up to this, which the store would refuse
// past its own document limit (64 MiB by default) anyway; any other
// answer is a few lines of JSON.
func externalMaxAnswer(op string) int {
	if op == "read" || op == "write" {
		return 256 << 20
	}
	return 1 << 20
}

// cappedBuffer keeps up to max bytes and then stops the program: a
// program whose output is not read would block, not end. The buffer is
// a field, not embedded, so that io.Copy cannot go round Write through
// bytes.Buffer's ReadFrom.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
	stop func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		b.stop()
		return 0, errors.New("too much output")
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *cappedBuffer) String() string { return b.buf.String() }

// External is an agent added by its program, git-snap-agent-NAME.
type External struct {
	name, path string
	id         externalID
	timeout    time.Duration // externalTimeout when 0; tests shorten it
}

// eventPattern is the shape of an event an external agent names: a
// word, so that it reads the same in a hook command, the hook log and
// doctor's report.
var eventPattern = lazy.Regexp(`^[A-Za-z0-9_.:-]{1,100}$`)

// externalID is what identify answers.
type externalID struct {
	Protocol     int               `json:"protocol"`
	Name         string            `json:"name"`
	Title        string            `json:"title"`
	Events       []string          `json:"events"`
	Settings     map[string]string `json:"settings"` // by scope: project, user; ~ is the home
	CompactEvent string            `json:"compact_event"`
	// Ops are the optional operations it answers: "write", to write
	// records back in the agent's own format (else restore writes them
	// one JSON line each).
	Ops  []string `json:"ops"`
	home string
}

// lookupExternal finds the program of the agent name on env's PATH and
// asks it to identify itself.
func lookupExternal(name string, env Env) (Adapter, error) {
	if env.Getenv == nil || snapshot.CheckName("agent", name) != nil || strings.ContainsAny(name, `/\`) {
		return nil, errors.New("no program")
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		path := filepath.Join(dir, ExternalPrefix+name)
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		x := External{name: name, path: path}
		if err := x.call("identify", nil, &x.id); err != nil {
			return nil, err
		}
		if x.id.Protocol != ExternalProtocol || x.id.Name != name || len(x.id.Events) == 0 {
			return nil, fmt.Errorf("%s answers identify with protocol %d, name %q and %d events: git-snap speaks protocol %d and needs its own name and the events to install", path, x.id.Protocol, x.id.Name, len(x.id.Events), ExternalProtocol)
		}
		for _, ev := range x.id.Events {
			if !eventPattern().MatchString(ev) {
				return nil, fmt.Errorf("%s answers identify with the event %q: an event is 1 to 100 letters, digits, '.', '_', ':' and '-'; fix or remove the program", path, ev)
			}
		}
		x.id.home = env.Home
		return x, nil
	}
	return nil, errors.New("no program")
}

// call runs one request: op with the members of args, the answer decoded
// into out.
func (x External) call(op string, args map[string]any, out any) error {
	req := map[string]any{"protocol": ExternalProtocol, "op": op}
	for k, v := range args {
		req[k] = v
	}
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	timeout := cmp.Or(x.timeout, externalTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, x.path)
	cmd.Stdin = bytes.NewReader(in)
	stdout := &cappedBuffer{max: externalMaxAnswer(op), stop: cancel}
	stderr := &cappedBuffer{max: 64 << 10, stop: cancel}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A process the program left behind may hold its output open: do not
	// wait for it once the program is gone.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if stdout.over {
		return fmt.Errorf("%s %s printed more than %d MiB; fix or remove the program", filepath.Base(x.path), op, stdout.max>>20)
	}
	if stderr.over {
		return fmt.Errorf("%s %s wrote more than %d KiB of errors; fix or remove the program", filepath.Base(x.path), op, stderr.max>>10)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s %s did not answer within %v and was stopped; fix or remove the program", filepath.Base(x.path), op, timeout)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %v %s", filepath.Base(x.path), op, err, strings.TrimSpace(stderr.String()))
	}
	var refused struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(stdout.Bytes(), &refused) == nil && refused.Error != "" {
		msg := fmt.Sprintf("%.1000s", refused.Error) // a refusal is a line or two, not a screenful
		if msg != refused.Error {
			msg += "… (cut)"
		}
		return errors.New(msg)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("%s %s answered no JSON object (%v): %.200s", filepath.Base(x.path), op, err, stdout.String())
	}
	return nil
}

// Name implements Adapter.
func (x External) Name() string { return x.name }

// Title is the agent's own name, as its program says.
func (x External) Title() string { return x.id.Title }

// Events implements Installer: the events its program installs hooks for.
func (x External) Events() []string { return x.id.Events }

// SettingsFile implements Installer: the file its program names for the
// scope, relative to the project, or to the home for ~/.
func (x External) SettingsFile(scope Scope, workTree string) (string, error) {
	key := map[Scope]string{DefaultScope: "project", ProjectScope: "project", UserScope: "user", LocalScope: "local"}[scope]
	f, ok := x.id.Settings[key]
	if !ok || f == "" {
		return "", fmt.Errorf("%s has no %s settings", x.name, key)
	}
	rest, home := strings.CutPrefix(f, "~/")
	if !filepath.IsLocal(filepath.FromSlash(rest)) || scope == UserScope && !home {
		return "", fmt.Errorf("%s names %q as its %s settings, which is not a file in the %s: a settings file is a path inside the project, or one starting with ~/ inside the home (for user settings, only that); fix or remove the program", x.path, f, key, map[bool]string{true: "home", false: "project"}[home || scope == UserScope])
	}
	if home {
		return filepath.Join(x.id.home, rest), nil
	}
	return filepath.Join(workTree, rest), nil
}

// InstallHook implements hookWriter: its program writes its hooks.
func (x External) InstallHook(file, command string) (bool, error) {
	var out struct {
		Changed bool `json:"changed"`
	}
	err := x.call("install", map[string]any{"file": file, "command": command, "events": x.id.Events}, &out)
	return out.Changed, err
}

// UninstallHook implements hookWriter.
func (x External) UninstallHook(file string) (bool, error) {
	var out struct {
		Changed bool `json:"changed"`
	}
	err := x.call("uninstall", map[string]any{"file": file}, &out)
	return out.Changed, err
}

// HookCommands implements hookLister: git-snap's commands by event, as
// its program reads them back.
func (x External) HookCommands(file string) (map[string][]string, error) {
	var out struct {
		Events map[string][]string `json:"events"`
	}
	if err := x.call("hooks", map[string]any{"file": file}, &out); err != nil {
		return nil, err
	}
	if out.Events == nil {
		out.Events = map[string][]string{}
	}
	return out.Events, nil
}

// Decode implements HookReader: its program reads the payload.
func (x External) Decode(stdin []byte, args []string) (Payload, error) {
	var out struct {
		SessionID      string `json:"session_id"`
		Event          string `json:"event"`
		TranscriptPath string `json:"transcript_path"`
		CWD            string `json:"cwd"`
		Tool           string `json:"tool"`
	}
	if err := x.call("payload", map[string]any{"stdin": string(stdin), "args": args}, &out); err != nil {
		return Payload{}, fmt.Errorf("the %s hook payload: %w", x.name, err)
	}
	if out.SessionID == "" || out.Event == "" {
		return Payload{}, fmt.Errorf("%s read the payload as no session_id or event", filepath.Base(x.path))
	}
	raw, _ := decodeObject(stdin, x.name+" hook payload")
	return Payload{Agent: x.name, Event: out.Event, SessionID: out.SessionID, TranscriptPath: out.TranscriptPath, CWD: out.CWD, Tool: out.Tool, Raw: raw}, nil
}

// ReadRecords has its program read the records of a transcript from a
// byte offset it gave before: each record with its view, which is kept
// in the record (viewKey), and the offset to go on from.
func (x External) ReadRecords(path string, offset int64) ([]any, int64, error) {
	var out struct {
		Records []struct {
			Record json.RawMessage `json:"record"`
			View   json.RawMessage `json:"view"`
		} `json:"records"`
		Offset int64 `json:"offset"`
	}
	if err := x.call("read", map[string]any{"path": path, "offset": offset}, &out); err != nil {
		return nil, offset, err
	}
	if out.Offset < offset {
		// Asked from there again, it would give the same records twice.
		return nil, offset, fmt.Errorf("%s read of %s from offset %d answered the offset %d, behind it; fix the program", filepath.Base(x.path), path, offset, out.Offset)
	}
	var recs []any
	for i, r := range out.Records {
		rec := Element(r.Record, snapshot.Limits{})
		if m, ok := rec.(map[string]any); ok && len(r.View) > 0 {
			view := Element(r.View, snapshot.Limits{})
			if err := checkUsage(view); err != nil {
				return nil, offset, fmt.Errorf("%s read gave record %d of %s a view whose %v; fix the program", filepath.Base(x.path), i+1, path, err)
			}
			m[viewKey] = view
		}
		recs = append(recs, rec)
	}
	return recs, out.Offset, nil
}

// maxViewTokens bounds one token count of a view: far more than one
// model call uses, and summed over a long session still a count a
// snapshot's header holds.
const maxViewTokens = 1_000_000_000

// checkUsage refuses a view whose usage is not whole token counts from
// 0 to maxViewTokens: summed into the session's totals, a negative or
// enormous one would make them wrong, or the snapshot one git-snap
// refuses to write.
func checkUsage(view any) error {
	v, _ := view.(map[string]any)
	u, ok := v["usage"]
	if !ok {
		return nil
	}
	usage, ok := u.(map[string]any)
	if !ok {
		return errors.New("usage is not an object of token counts")
	}
	for _, k := range []string{"input", "cache_read", "cache_write", "output"} {
		c, ok := usage[k]
		if !ok {
			continue
		}
		n, _ := c.(snapshot.Number)
		if i, ok := n.Int64(); !ok || i < 0 || i > maxViewTokens {
			return fmt.Errorf("usage.%s is %.40v, not a whole number of tokens from 0 to %d", k, c, maxViewTokens)
		}
	}
	return nil
}

// CheckFile has its program say whether a file is its agent's
// transcript, and of which session: what import asks it.
func (x External) CheckFile(path string) (string, error) {
	var out struct {
		Session string `json:"session"`
	}
	if err := x.call("check", map[string]any{"path": path}, &out); err != nil {
		return "", err
	}
	return out.Session, nil
}

// Transcripts implements HookReader: a session is one file.
func (External) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (x External) CompactEvent() string { return x.id.CompactEvent }

// ChangesFiles implements HookReader: any tool may have written.
func (External) ChangesFiles(Payload) bool { return true }

// IsPrompt implements RecordReader: the view says so.
func (External) IsPrompt(record any) bool {
	v, _ := externalView(record)
	return v["prompt"] == true
}

// TouchedFiles implements RecordReader: the view's files.
func (External) TouchedFiles(record any) []string {
	v, _ := externalView(record)
	var out []string
	files, _ := v["files"].([]any)
	for _, f := range files {
		if s, ok := f.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// View implements RecordReader.
func (External) View(record any) (snapshot.Message, bool) { return viewExternal(record) }

// IsCompaction implements RecordReader: the view says so.
func (External) IsCompaction(record any) bool {
	v, _ := externalView(record)
	return v["compaction"] == true
}

// Check implements Importer; CheckFile is what import asks.
func (External) Check([]any) error { return nil }

// SessionName implements Importer: the file's name, without its
// extension; CheckFile's session when it names one.
func (x External) SessionName(path string) string {
	if s, err := x.CheckFile(path); err == nil && s != "" {
		return s
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// externalView is the view an external agent's program gave a record.
func externalView(record any) (map[string]any, bool) {
	r, _ := record.(map[string]any)
	v, ok := r[viewKey].(map[string]any)
	return v, ok
}

// viewExternal reads a record's view as a message: its role, text, tool
// calls and results, model, time and tokens.
func viewExternal(record any) (snapshot.Message, bool) {
	v, ok := externalView(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(v, "id"), Role: str(v, "role"), Time: str(v, "time"), Model: str(v, "model")}
	if t := str(v, "text"); t != "" {
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartText, Text: t})
	}
	calls, _ := v["tool_calls"].([]any)
	for _, c := range calls {
		call, _ := c.(map[string]any)
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolCall, CallID: str(call, "id"), Tool: str(call, "name"), Input: call["input"]})
	}
	results, _ := v["tool_results"].([]any)
	for _, r := range results {
		res, _ := r.(map[string]any)
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolResult, CallID: str(res, "id"), Text: str(res, "output"), IsError: res["error"] == true})
	}
	if u, ok := v["usage"].(map[string]any); ok {
		m.UsageKey = m.ID
		m.Usage = &snapshot.Usage{Input: snapshot.Int(u["input"]), CacheRead: snapshot.Int(u["cache_read"]),
			CacheWrite: snapshot.Int(u["cache_write"]), Output: snapshot.Int(u["output"])}
	}
	return m, true
}

// write has its program write records back in its agent's format, when
// it says it can (identify's ops); ok is false when it cannot.
func (x External) write(records []any) (data []byte, ok bool, err error) {
	if !slices.Contains(x.id.Ops, "write") {
		return nil, false, nil
	}
	plain := make([]any, len(records))
	for i, r := range records {
		plain[i] = withoutView(r)
	}
	var out struct {
		Data *string `json:"data"`
	}
	if err := x.call("write", map[string]any{"records": plain}, &out); err != nil {
		return nil, true, err
	}
	if out.Data == nil {
		return nil, true, fmt.Errorf("%s write answered no data", filepath.Base(x.path))
	}
	return []byte(*out.Data), true, nil
}

// RestoreFor is Restore as agent a writes its files: an external agent
// whose program writes its own format has it write each file (see
// External), every other's records are written one line each.
func RestoreFor(a Adapter, doc map[string]any) (map[string][][]byte, error) {
	files, err := Restore(doc)
	x, external := a.(External)
	if err != nil || !external {
		return files, err
	}
	if _, isDoc := docStateFrom(doc); isDoc {
		return files, nil
	}
	layout, err := LayoutFrom(doc)
	if err != nil {
		return nil, err
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	byFile, err := layout.Split(msgs)
	if err != nil {
		return nil, err
	}
	for name, recs := range byFile {
		data, ok, err := x.write(recs)
		if err != nil {
			return nil, fmt.Errorf("write %s back: %w", cmpOrName(name), err)
		}
		if !ok {
			return files, nil
		}
		files[name] = splitLines(data)
	}
	return files, nil
}

// cmpOrName names a transcript file of a layout: "" is the main one.
func cmpOrName(name string) string {
	if name == "" {
		return "the transcript"
	}
	return name
}

// splitLines is data as the lines JoinLines writes back the same.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// withoutView is a record as its agent wrote it: without the view
// git-snap kept in it.
func withoutView(elem any) any {
	m, ok := elem.(map[string]any)
	if !ok || m[viewKey] == nil {
		return elem
	}
	out := make(map[string]any, len(m)-1)
	for k, v := range m {
		if k != viewKey {
			out[k] = v
		}
	}
	return out
}
