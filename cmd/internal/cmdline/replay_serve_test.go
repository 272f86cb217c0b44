package cmdline

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// replayEnv is an env for commands in the repository at dir.
func replayEnv(dir string, stdout io.Writer, stderr io.Writer) *env {
	vars := map[string]string{"HOME": dir, "GIT_CONFIG_NOSYSTEM": "1"}
	return &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, dir: dir, getenv: func(k string) string { return vars[k] }}
}

// replay --serve serves a Codex session the agent wrote (testdata/live)
// as OpenAI Responses: the recorded first call to a request with the
// recorded first prompt, an error naming the step to another, and says
// on stderr what each got.
func TestReplayServeCodexSession(t *testing.T) {
	_, paths := openEmpty(t)
	dir := paths.WorkTree
	rollout := mustAbs(filepath.Join("..", "..", "..", "testdata", "live", "codex", "rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl"))
	var out, errOut lockedBuffer
	if code := replayEnv(dir, &out, &errOut).run(context.Background(), []string{"import", "--from", "codex", rollout}); code != 0 {
		t.Fatalf("import: %d\n%s%s", code, out.String(), errOut.String())
	}
	const session = "01a211a3-7e80-7a72-8c19-58ed6c22e482"

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	var served lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- replayEnv(dir, pw, &served).run(ctx, []string{"replay", "--serve", session})
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if !strings.HasPrefix(first, "serving 3 model calls of "+session+" as OpenAI Responses at http://127.0.0.1:") {
		t.Fatalf("first line %q", first)
	}
	url := strings.TrimSpace(first[strings.LastIndex(first, " ")+1:])
	post := func(body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/responses", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const tools = `"tools":[{"type":"function","name":"exec_command"}]`
	status, body := post(`{"model":"gpt-5.5",` + tools + `,"input":"Do something else."}`)
	if status != 400 || !strings.Contains(body, `does not match step 1 of 3: the recording has another prompt next`) || strings.Contains(body, "hello.txt") {
		t.Errorf("another prompt: %d %s", status, body)
	}
	status, body = post(`{"model":"gpt-5.5",` + tools + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Write hello.txt with the shell."}]}]}`)
	if status != 200 || !strings.Contains(body, `"call_id":"call_gitsnap_live_1"`) || !strings.Contains(body, `"name":"exec_command"`) || !strings.Contains(body, `"input_tokens":6903`) {
		t.Errorf("the recorded prompt: %d %s", status, body)
	}
	cancel()
	if code := <-done; code != 130 && code != 0 {
		t.Errorf("exit status %d", code)
	}
	log := served.String()
	for _, want := range []string{"refused: git-snap model server: the request does not match step 1 of 3: the recording has the prompt \"Write hello.txt with the shell.\" next", "served model call 1 of 3: tool calls exec_command", "served 1 of 3 model calls"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
}

// replay --serve refuses, with exit status 2 and before listening, what it
// cannot serve.
func TestReplayServeRefuses(t *testing.T) {
	s, paths := openEmpty(t)
	if _, err := s.Save(context.Background(), map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}}, storage.SaveOptions{Session: "notes"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--addr", "127.0.0.1:0", "notes"}, "--addr goes with --serve"},
		{[]string{"replay", "--serve", "notes"}, `recorded from "cli", not from an agent whose model git-snap can serve`},
	} {
		var out, errOut lockedBuffer
		if code := replayEnv(paths.WorkTree, &out, &errOut).run(context.Background(), c.args); code != 2 || !strings.Contains(errOut.String(), c.want) || out.String() != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out.String(), errOut.String(), c.want)
		}
	}
}

// replay --serve serves a Gemini CLI 0.61 chat (testdata/live) as the
// Gemini API: the recorded call to the recorded prompt, its tool call
// under the model's id; the next only to the result of that call, which
// Gemini CLI sends back under its own prefixed id, and the chat keeps in
// the call's message.
func TestReplayServeGeminiSession(t *testing.T) {
	_, paths := openEmpty(t)
	dir := paths.WorkTree
	chat := mustAbs(filepath.Join("..", "..", "..", "testdata", "live", "gemini", "session-2026-11-25T09-50-ee947b54.jsonl"))
	var out, errOut lockedBuffer
	if code := replayEnv(dir, &out, &errOut).run(context.Background(), []string{"import", "--from", "gemini", chat}); code != 0 {
		t.Fatalf("import: %d\n%s%s", code, out.String(), errOut.String())
	}
	const session = "ee947b54-9891-4991-99f9-ecf0c7dc68bb"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	var served lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- replayEnv(dir, pw, &served).run(ctx, []string{"replay", "--serve", session})
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if !strings.HasPrefix(first, "serving 3 model calls of "+session+" as Gemini generateContent at http://127.0.0.1:") {
		t.Fatalf("first line %q", first)
	}
	url := strings.TrimSpace(first[strings.LastIndex(first, " ")+1:])
	post := func(body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const tools = `"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]`
	const prompt = `{"role":"user","parts":[{"text":"<session_context>…</session_context>"}]},{"role":"user","parts":[{"text":"Write hello.txt with the shell."}]}`
	status, body := post(`{"contents":[` + prompt + `],` + tools + `}`)
	if status != 200 || !strings.Contains(body, `"id":"call_gitsnap_live_1"`) || !strings.Contains(body, `"name":"run_shell_command"`) || !strings.Contains(body, `"promptTokenCount":6903`) {
		t.Errorf("the recorded prompt: %d %s", status, body)
	}
	call := `{"role":"model","parts":[{"functionCall":{"id":"run_shell_command__call_gitsnap_live_1","name":"run_shell_command","args":{}}}]}`
	result := func(id string) string {
		return `{"role":"user","parts":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":"ok"}}}]}`
	}
	status, body = post(`{"contents":[` + prompt + `,` + call + `,` + result("run_shell_command__call_other") + `],` + tools + `}`)
	if status != 400 || !strings.Contains(body, "step 2 of 3: the recording has the result of another tool call next") || strings.Contains(body, "live_1") {
		t.Errorf("another call's result: %d %s", status, body)
	}
	status, body = post(`{"contents":[` + prompt + `,` + call + `,` + result("run_shell_command__call_gitsnap_live_1") + `],` + tools + `}`)
	if status != 200 || !strings.Contains(body, `I wrote hello.txt.`) {
		t.Errorf("the recorded result: %d %s", status, body)
	}
	cancel()
	if code := <-done; code != 130 && code != 0 {
		t.Errorf("exit status %d", code)
	}
	if log := served.String(); !strings.Contains(log, "served 2 of 3 model calls") || !strings.Contains(log, "step 2 of 3: the recording has the result of tool call call_gitsnap_live_1 next") {
		t.Errorf("stderr:\n%s", log)
	}
}

// replay --serve talks only to the agent on this machine: a web page
// the user opens reaches 127.0.0.1 too, through DNS rebinding (its own
// name resolving to 127.0.0.1) or by posting a form. A foreign Host,
// Origin or Sec-Fetch-Site, or a body that is not JSON, is refused before
// any step is played, and no refusal quotes the recording; listening on
// an address other machines reach is warned about.
func TestReplayServeTalksOnlyToItsClient(t *testing.T) {
	_, paths := openEmpty(t)
	dir := paths.WorkTree
	rollout := mustAbs(filepath.Join("..", "..", "..", "testdata", "live", "codex", "rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl"))
	var out, errOut lockedBuffer
	if code := replayEnv(dir, &out, &errOut).run(context.Background(), []string{"import", "--from", "codex", rollout}); code != 0 {
		t.Fatalf("import: %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		pr, pw := io.Pipe()
		var served lockedBuffer
		done := make(chan int, 1)
		go func() {
			done <- replayEnv(dir, pw, &served).run(ctx, []string{"replay", "--serve", "--addr", addr, "01a211a3-7e80-7a72-8c19-58ed6c22e482"})
			pw.Close()
		}()
		first, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		url := strings.TrimSpace(first[strings.LastIndex(first, " ")+1:])
		port := url[strings.LastIndex(url, ":")+1:]
		const prompt = `{"model":"gpt-5.5","tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Write hello.txt with the shell."}]}]}`
		for _, c := range []struct {
			name   string
			header map[string]string
			body   string
			status int
		}{
			{"rebound name", map[string]string{"Host": "evil.example:" + port}, prompt, http.StatusMisdirectedRequest},
			{"localhost.evil", map[string]string{"Host": "localhost.evil.example:" + port}, prompt, http.StatusMisdirectedRequest},
			{"foreign origin", map[string]string{"Origin": "http://evil.example"}, prompt, http.StatusForbidden},
			{"null origin", map[string]string{"Origin": "null"}, prompt, http.StatusForbidden},
			{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, prompt, http.StatusForbidden},
			{"a form's text/plain", map[string]string{"Content-Type": "text/plain"}, prompt, http.StatusUnsupportedMediaType},
			{"a form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, prompt, http.StatusUnsupportedMediaType},
			{"no type", map[string]string{"Content-Type": ""}, prompt, http.StatusUnsupportedMediaType},
			{"another prompt", nil, strings.Replace(prompt, "Write hello.txt", "Say", 1), http.StatusBadRequest},
			{"localhost, the recorded prompt", map[string]string{"Host": "localhost:" + port}, prompt, http.StatusOK},
		} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/responses", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("%s, %s: status %d, want %d: %s", addr, c.name, resp.StatusCode, c.status, body)
			}
			if c.status != http.StatusOK && (strings.Contains(string(body), "hello.txt") || strings.Contains(string(body), "exec_command")) {
				t.Errorf("%s, %s: the refusal quotes the recording: %s", addr, c.name, body)
			}
		}
		cancel()
		<-done
		log := served.String()
		if !strings.Contains(log, "served 1 of 3 model calls") {
			t.Errorf("%s: a refused request was played:\n%s", addr, log)
		}
		if warned := strings.Contains(log, "warning: listening on "+addr+": anyone who can reach this address"); warned != (addr == "0.0.0.0:0") {
			t.Errorf("%s: warned %v:\n%s", addr, warned, log)
		}
	}
}
