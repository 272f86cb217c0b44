package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The plugin is JavaScript: doctor reads git-snap's command and events
// from its COMMAND and EVENTS lines; a plugin git-snap wrote before it
// called for dispose (testdata/opencode/git-snap-plugin-0.js, as that
// release wrote it) has the three events it called for then, so that
// doctor says dispose is missing and install adds it.
func TestOpenCodeHookCommandsReadThePlugin(t *testing.T) {
	a, _ := Lookup("opencode", Env{Home: t.TempDir()})
	dir := t.TempDir()
	file := filepath.Join(dir, ".opencode", "plugins", "git-snap.js")
	if got, err := HookCommandsOf(a, file); err != nil || len(got) != 0 {
		t.Fatalf("no plugin: %v, %v", got, err)
	}
	cmd := "'/opt/my tools/git-snap' hook opencode"
	if _, err := Install(a, file, cmd); err != nil {
		t.Fatal(err)
	}
	got, err := HookCommandsOf(a, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range a.Events() {
		if !slices.Equal(got[ev], []string{cmd}) {
			t.Errorf("event %s: %q, want %q", ev, got[ev], cmd)
		}
	}
	if len(got) != 4 || got["dispose"] == nil {
		t.Errorf("events %v", got)
	}

	legacy, err := os.ReadFile(filepath.Join("..", "testdata", "opencode", "git-snap-plugin-0.js"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(string(legacy))
	got, err = HookCommandsOf(a, file)
	if err != nil || len(got) != 3 || got["dispose"] != nil || !slices.Equal(got["session.idle"], []string{"git-snap hook opencode"}) {
		t.Errorf("the earlier plugin: %v, %v", got, err)
	}

	for name, bad := range map[string]string{
		"no command":        strings.Replace(string(legacy), `const COMMAND = "git-snap hook opencode"`, "", 1),
		"a command no JSON": strings.Replace(string(legacy), `const COMMAND = "git-snap hook opencode"`, `const COMMAND = 'git-snap hook opencode'`, 1),
		"events no JSON":    strings.Replace(string(OpenCode{}.plugin("git-snap hook opencode")), `const EVENTS = [`, `const EVENTS = [,`, 1),
	} {
		write(bad)
		var se *SettingsError
		if _, err := HookCommandsOf(a, file); !errors.As(err, &se) || se.Path != file {
			t.Errorf("%s: %v, want a SettingsError naming the file", name, err)
		}
	}
	write("export const Mine = async () => ({})\n")
	if got, err := HookCommandsOf(a, file); err != nil || len(got) != 0 {
		t.Errorf("a plugin of the user's: %v, %v", got, err)
	}
}

// OpenCode loads no plugin of the user's with OPENCODE_PURE set (as it
// reads booleans), and not the project's .opencode with
// OPENCODE_DISABLE_PROJECT_CONFIG true or 1: doctor fails for each, and
// for the project's plugin only in the second case.
func TestOpenCodeNeeds(t *testing.T) {
	work := "/src/demo"
	project := filepath.Join(work, ".opencode", "plugins", "git-snap.js")
	user := "/home/ana/.config/opencode/plugins/git-snap.js"
	for _, c := range []struct {
		vars  map[string]string
		file  string
		fails []string
	}{
		{nil, project, nil},
		{map[string]string{"OPENCODE_PURE": "1"}, project, []string{"plugins"}},
		{map[string]string{"OPENCODE_PURE": "Yes"}, user, []string{"plugins"}},
		{map[string]string{"OPENCODE_PURE": "0"}, project, nil},
		{map[string]string{"OPENCODE_DISABLE_PROJECT_CONFIG": "true"}, project, []string{"project config"}},
		{map[string]string{"OPENCODE_DISABLE_PROJECT_CONFIG": "yes"}, project, nil}, // OpenCode reads only true and 1 there
		{map[string]string{"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}, user, nil},
		{map[string]string{"OPENCODE_DISABLE_PROJECT_CONFIG": "1", "OPENCODE_PURE": "true"}, project, []string{"plugins", "project config"}},
	} {
		a, _ := Lookup("opencode", Env{Home: "/home/ana", Getenv: func(k string) string { return c.vars[k] }})
		var fails []string
		for _, ch := range a.(Needer).Needs(c.file, work) {
			if ch.Status == Fail {
				fails = append(fails, ch.Name)
				if ch.Fix == "" || !strings.Contains(ch.Detail, "is set") {
					t.Errorf("%v: %+v", c.vars, ch)
				}
			}
		}
		if !slices.Equal(fails, c.fails) {
			t.Errorf("%v, %s: fails %v, want %v", c.vars, c.file, fails, c.fails)
		}
	}
}

// The dispose call asks for an export once OpenCode's process is gone;
// a payload that names no process, another event, an executable that is
// not OpenCode's or a session id that is no file name asks for none.
func TestOpenCodeExportAfter(t *testing.T) {
	a, _ := Lookup("opencode", Env{})
	ex := a.(Exporter)
	payload := func(change map[string]any) Payload {
		raw := map[string]any{"hook_event_name": "dispose", "session_id": "ses_1", "cwd": "/src", "opencode_pid": 4242, "opencode": "/opt/opencode-ai/bin/opencode.exe"}
		for k, v := range change {
			raw[k] = v
		}
		data, _ := json.Marshal(raw)
		p, err := a.Decode(data, nil)
		if err != nil {
			p = Payload{Event: "dispose", Raw: map[string]any{}} // a session id Decode refuses asks for nothing either
		}
		return p
	}
	pid, cmd, ok := ex.ExportAfter(payload(nil))
	if !ok || pid != 4242 || !slices.Equal(cmd, []string{"/opt/opencode-ai/bin/opencode.exe", "export", "--pure", "ses_1"}) {
		t.Errorf("dispose: %d %q %v", pid, cmd, ok)
	}
	for _, raw := range []map[string]any{
		{"hook_event_name": "session.idle"},
		{"opencode_pid": nil},
		{"opencode_pid": 1.0},
		{"opencode_pid": -7.0},
		{"opencode_pid": 1e12},
		{"opencode": "opencode"},
		{"opencode": "/usr/bin/sh"},
		{"opencode": ""},
		{"opencode_pid": "4242"},
		{"session_id": "../ses_1"},
		{"session_id": `ses\1`},
		{"session_id": ""},
	} {
		if _, cmd, ok := ex.ExportAfter(payload(raw)); ok {
			t.Errorf("%v: asks for %q", raw, cmd)
		}
	}
}

// resume writes the export into OpenCode's data folder, named by the
// session id the export gives, and prints how to import and open it.
func TestOpenCodeResumeTarget(t *testing.T) {
	a, _ := Lookup("opencode", Env{Home: "/home/ana", Getenv: func(k string) string {
		return map[string]string{"XDG_DATA_HOME": "/data"}[k]
	}})
	doc := map[string]any{"cwd": "/src/my demo", documentMember: map[string]any{"head": map[string]any{"info": map[string]any{"id": "ses_abc"}}}}
	path, cmd, err := a.(Resumer).ResumeTarget("ses_abc", doc)
	if err != nil || path != "/data/opencode/git-snap/ses_abc.json" ||
		cmd != "opencode import /data/opencode/git-snap/ses_abc.json && cd '/src/my demo' && opencode --session ses_abc" {
		t.Errorf("%s, %s, %v", path, cmd, err)
	}
	if name := TranscriptName(a, "ses_abc", doc); name != "ses_abc.json" {
		t.Errorf("named %s", name)
	}
	doc[documentMember] = map[string]any{"head": map[string]any{"info": map[string]any{"id": "../../etc/x"}}}
	if name := TranscriptName(a, "ses_abc", doc); name != "ses_abc.json" {
		t.Errorf("an id that is no file name names the file %s", name)
	}
	if _, _, err := a.(Resumer).ResumeTarget("ses_abc", map[string]any{}); err == nil {
		t.Error("a snapshot of no export was resumed")
	}
	if _, _, err := a.(Resumer).ResumeTarget("../x", doc); err == nil {
		t.Error("a session name that is no file name was resumed")
	}
}
