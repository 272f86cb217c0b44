package modelapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends body to the server and returns the status and the events
// of a streamed answer (or the body as one event).
func post(t *testing.T, url, path, body string) (int, []map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var v map[string]any
		data, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("answer %q: %v", data, err)
		}
		return resp.StatusCode, []map[string]any{v}
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "[DONE]" {
			var v map[string]any
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			out = append(out, v)
		}
	}
	return resp.StatusCode, out
}

func start(t *testing.T, api string, r Responder) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s, err := Start(ctx, api, Options{Addr: "127.0.0.1:0", Keep: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAnthropicScriptStreamsToolCallThenText(t *testing.T) {
	script := &Script{Steps: []Step{
		{Prompt: "make a file", Reply: Reply{ToolCalls: []ToolCall{{ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": "touch f"}}}, Usage: Usage{Input: 10, CacheRead: 20, CacheWrite: 30, Output: 4}}},
		{Results: []string{"toolu_1"}, Reply: Reply{Text: "made it", Usage: Usage{Input: 1, Output: 2}}},
	}}
	s := start(t, "anthropic-messages", script)
	const tools = `"tools":[{"name":"Bash"}]`
	status, evs := post(t, s.URL(), "/v1/messages?beta=true", `{"model":"claude-x","stream":true,`+tools+`,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"please make a file"}]}]}`)
	if status != 200 || len(evs) != 6 {
		t.Fatalf("status %d, %d events: %v", status, len(evs), evs)
	}
	start := evs[0]["message"].(map[string]any)
	if start["model"] != "claude-x" || start["usage"].(map[string]any)["cache_creation_input_tokens"] != 30.0 {
		t.Errorf("message_start %v", start)
	}
	block := evs[1]["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["id"] != "toolu_1" || evs[2]["delta"].(map[string]any)["partial_json"] != `{"command":"touch f"}` {
		t.Errorf("tool_use %v %v", block, evs[2])
	}
	if d := evs[4]; d["delta"].(map[string]any)["stop_reason"] != "tool_use" || d["usage"].(map[string]any)["output_tokens"] != 4.0 {
		t.Errorf("message_delta %v", d)
	}
	// The next request must carry the tool's result.
	status, evs = post(t, s.URL(), "/v1/messages", `{"model":"claude-x",`+tools+`,"messages":[{"role":"user","content":"please make a file"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`)
	if status != 200 || evs[0]["content"].([]any)[0].(map[string]any)["text"] != "made it" || evs[0]["stop_reason"] != "end_turn" {
		t.Fatalf("non-streamed answer %d %v", status, evs)
	}
	// A request past the script is refused, naming why, in the API's error shape.
	status, evs = post(t, s.URL(), "/v1/messages", `{"model":"claude-x",`+tools+`,"messages":[{"role":"user","content":"again"}]}`)
	msg := evs[0]["error"].(map[string]any)["message"].(string)
	if status != 400 || evs[0]["type"] != "error" || !strings.Contains(msg, "all 2 steps were served") {
		t.Errorf("past the end: %d %v", status, evs)
	}
	if got := s.Exchanges(); len(got) != 3 || got[2].Reply != nil || got[0].Request.Items[1].Text != "please make a file" || !strings.Contains(got[2].Err, `the prompt "again"`) {
		t.Errorf("exchanges %+v", got)
	}
}

func TestScriptRefusesAnotherConversationNamingTheStep(t *testing.T) {
	script := &Script{Steps: []Step{
		{Prompt: "first", Reply: Reply{ToolCalls: []ToolCall{{ID: "call_a", Name: "exec_command", Input: `{"cmd":"ls"}`}}}},
		{Results: []string{"call_a"}, Reply: Reply{Text: "done"}},
	}}
	s := start(t, "openai-responses", script)
	const tools = `"tools":[{"type":"function","name":"exec_command"}]`
	status, evs := post(t, s.URL(), "/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"something else"}]}]}`)
	// The answer says what kind of input the step expects; the recorded
	// prompt is in the server's log (the exchange's error) only.
	msg := evs[0]["error"].(map[string]any)["message"].(string)
	if status != 400 || !strings.Contains(msg, "step 1 of 2: the recording has another prompt next") || strings.Contains(msg, "first") {
		t.Errorf("%d %v", status, evs)
	}
	if err := s.Exchanges()[0].Err; !strings.Contains(err, `the prompt "first" next`) || !strings.Contains(err, `"something else"`) {
		t.Errorf("the log says %q", err)
	}
	if script.Served() != 0 {
		t.Error("a refused request was counted as served")
	}
	status, evs = post(t, s.URL(), "/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"the first thing"}]}]}`)
	last := evs[len(evs)-1]
	if status != 200 || last["type"] != "response.completed" {
		t.Fatalf("%d %v", status, evs)
	}
	item := last["response"].(map[string]any)["output"].([]any)[0].(map[string]any)
	if item["type"] != "function_call" || item["call_id"] != "call_a" || item["arguments"] != `{"cmd":"ls"}` {
		t.Errorf("output %v", item)
	}
	// The result of another call is not the recorded conversation.
	status, evs = post(t, s.URL(), "/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[{"type":"function_call","call_id":"call_b","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"call_b","output":"x"}]}`)
	if msg := evs[0]["error"].(map[string]any)["message"].(string); status != 400 || !strings.Contains(msg, "step 2 of 2: the recording has the result of another tool call next") || strings.Contains(msg, "call_a") {
		t.Errorf("%d %v", status, evs)
	}
	if err := s.Exchanges()[2].Err; !strings.Contains(err, "step 2 of 2: the recording has the result of tool call call_a next; the request's last input is the result of tool call call_b") {
		t.Errorf("the log says %q", err)
	}
}

func TestResponsesUsageCountsCacheInInput(t *testing.T) {
	script := &Script{Steps: []Step{{Reply: Reply{Text: "hi", Usage: Usage{Input: 100, CacheRead: 20, CacheWrite: 30, Output: 7}}}}}
	s := start(t, "openai-responses", script)
	_, evs := post(t, s.URL(), "/v1/responses", `{"model":"m","tools":[{"type":"function","name":"f"}],"input":"hello"}`)
	u := evs[0]["usage"].(map[string]any)
	d := u["input_tokens_details"].(map[string]any)
	if u["input_tokens"] != 150.0 || d["cached_tokens"] != 20.0 || d["cache_write_tokens"] != 30.0 || u["output_tokens"] != 7.0 || u["total_tokens"] != 157.0 {
		t.Errorf("usage %v", u)
	}
}

func TestSideRequestsAreNoStep(t *testing.T) {
	script := &Script{Steps: []Step{{Reply: Reply{Text: "main"}}}}
	s := start(t, "anthropic-messages", script)
	_, evs := post(t, s.URL(), "/v1/messages", `{"model":"haiku","messages":[{"role":"user","content":"title this"}]}`)
	if evs[0]["content"].([]any)[0].(map[string]any)["text"] != "ok" || script.Served() != 0 {
		t.Errorf("side answer %v, served %d", evs, script.Served())
	}
	status, evs := post(t, s.URL(), "/v1/models", `{}`)
	if status != 404 || !strings.Contains(evs[0]["error"].(map[string]any)["message"].(string), "not a model call of Anthropic Messages") {
		t.Errorf("%d %v", status, evs)
	}
}

// Gemini: the model and streaming are in the URL; ?alt=sse streams
// server-sent events without names; the call id Gemini CLI sends back
// prefixed with the tool's name is the model's; the usage has no cache
// writes, so they are sent (and recorded) as uncached input.
func TestGeminiStreamsFunctionCallThenText(t *testing.T) {
	script := &Script{Steps: []Step{
		{Prompt: "make a file", Reply: Reply{ToolCalls: []ToolCall{{ID: "call_1", Name: "run_shell_command", Input: map[string]any{"command": "touch f"}}}, Usage: Usage{Input: 10, CacheRead: 20, CacheWrite: 30, Output: 4}}},
		{Results: []string{"call_1"}, Reply: Reply{Text: "made it", Usage: Usage{Input: 1, Output: 2}}},
	}}
	s := start(t, "gemini", script)
	const tools = `"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]`
	status, evs := post(t, s.URL(), "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"<session_context>x</session_context>"}]},{"role":"user","parts":[{"text":"please make a file"}]}],`+tools+`}`)
	if status != 200 || len(evs) != 1 {
		t.Fatalf("status %d, %d events: %v", status, len(evs), evs)
	}
	cand := evs[0]["candidates"].([]any)[0].(map[string]any)
	call := cand["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionCall"].(map[string]any)
	u := evs[0]["usageMetadata"].(map[string]any)
	if call["id"] != "call_1" || call["args"].(map[string]any)["command"] != "touch f" || cand["finishReason"] != "STOP" ||
		u["promptTokenCount"] != 60.0 || u["cachedContentTokenCount"] != 20.0 || u["candidatesTokenCount"] != 4.0 || evs[0]["modelVersion"] != "gemini-x" {
		t.Errorf("chunk %v", evs[0])
	}
	// The result comes back under the id Gemini CLI gave the call.
	status, evs = post(t, s.URL(), "/v1beta/models/gemini-x:generateContent", `{"contents":[{"role":"user","parts":[{"text":"please make a file"}]},{"role":"model","parts":[{"functionCall":{"id":"run_shell_command__call_1","name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"run_shell_command__call_1","name":"run_shell_command","response":{"output":"ok"}}}]}],`+tools+`}`)
	if status != 200 || evs[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"] != "made it" {
		t.Fatalf("non-streamed answer %d %v", status, evs)
	}
	got := s.Exchanges()
	if len(got) != 2 || got[0].Request.Model != "gemini-x" || !got[0].Request.Stream || got[1].Request.Stream ||
		got[0].Reply.Usage != (Usage{Input: 40, CacheRead: 20, Output: 4}) || got[1].Request.Items[2].CallID != "call_1" || got[1].Request.Items[2].Text != "ok" {
		t.Errorf("exchanges %+v", got)
	}
	// Another conversation is refused in Gemini's error shape.
	status, evs = post(t, s.URL(), "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"again"}]}],`+tools+`}`)
	if e, _ := evs[0]["error"].(map[string]any); status != 400 || e["status"] != "INVALID_ARGUMENT" || !strings.Contains(e["message"].(string), "all 2 steps were served") {
		t.Errorf("past the end: %d %v", status, evs)
	}
}

// Gemini CLI's model router asks, with no tools, for JSON of a schema
// whose score must be at least 1: a side request, answered with the
// least JSON the schema takes, no step.
func TestGeminiSideRequestForJSONGetsJSON(t *testing.T) {
	script := &Script{Steps: []Step{{Reply: Reply{Text: "main"}}}}
	s := start(t, "gemini", script)
	_, evs := post(t, s.URL(), "/v1beta/models/gemini-3.5-flash-lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"route this"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"}},"required":["complexity_reasoning","complexity_score"]}}}`)
	text := evs[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
	var v struct {
		Reasoning *string `json:"complexity_reasoning"`
		Score     float64 `json:"complexity_score"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || v.Reasoning == nil || v.Score < 1 || script.Served() != 0 {
		t.Errorf("side answer %q (%v), served %d", text, err, script.Served())
	}
}

// Chat Completions, as Copilot CLI speaks it: streamed chunks with the
// tool call as a delta, the finish reason, the usage in a last chunk
// without choices when stream_options asks for it (prompt tokens count
// the cached ones), then [DONE]; the next request carries the result as
// a tool message; another conversation is refused in OpenAI's error
// shape, naming the step.
func TestChatStreamsToolCallThenText(t *testing.T) {
	script := &Script{Steps: []Step{
		{Prompt: "make a file", Reply: Reply{ToolCalls: []ToolCall{{ID: "call_1", Name: "bash", Input: map[string]any{"command": "touch f"}}}, Usage: Usage{Input: 10, CacheRead: 20, CacheWrite: 30, Output: 4}}},
		{Results: []string{"call_1"}, Reply: Reply{Text: "made it", Usage: Usage{Input: 1, Output: 2}}},
	}}
	s := start(t, "openai-chat", script)
	const tools = `"tools":[{"type":"function","function":{"name":"bash"}}]`
	status, evs := post(t, s.URL(), "/v1/chat/completions", `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},`+tools+`,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"please make a file"}]}]}`)
	if status != 200 || len(evs) != 4 {
		t.Fatalf("status %d, %d events: %v", status, len(evs), evs)
	}
	choice := func(ev map[string]any) map[string]any { return ev["choices"].([]any)[0].(map[string]any) }
	call := choice(evs[1])["delta"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "call_1" || fn["name"] != "bash" || fn["arguments"] != `{"command":"touch f"}` || evs[1]["model"] != "gpt-x" {
		t.Errorf("tool call chunk %v", evs[1])
	}
	if choice(evs[2])["finish_reason"] != "tool_calls" {
		t.Errorf("finish chunk %v", evs[2])
	}
	u := evs[3]["usage"].(map[string]any)
	if len(evs[3]["choices"].([]any)) != 0 || u["prompt_tokens"] != 60.0 || u["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 20.0 || u["completion_tokens"] != 4.0 {
		t.Errorf("usage chunk %v", evs[3])
	}
	// Without include_usage, no usage chunk.
	body := `{"model":"gpt-x","stream":true,` + tools + `,"messages":[{"role":"user","content":"please make a file"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`
	status, evs = post(t, s.URL(), "/v1/chat/completions", body)
	if status != 200 || len(evs) != 3 || choice(evs[1])["delta"].(map[string]any)["content"] != "made it" || choice(evs[2])["finish_reason"] != "stop" {
		t.Fatalf("second answer %d %v", status, evs)
	}
	got := s.Exchanges()
	if it := got[1].Request.Items; len(it) != 3 || it[1].Kind != ItemToolCall || it[2].Kind != ItemToolResult || it[2].CallID != "call_1" || it[2].Text != "ok" {
		t.Errorf("second request read as %+v", it)
	}
	status, evs = post(t, s.URL(), "/v1/chat/completions", `{"model":"gpt-x","stream":true,`+tools+`,"messages":[{"role":"user","content":"again"}]}`)
	if e, _ := evs[0]["error"].(map[string]any); status != 400 || e["type"] != "invalid_request_error" || !strings.Contains(e["message"].(string), "all 2 steps were served") {
		t.Errorf("past the end: %d %v", status, evs)
	}
}

func TestChatWholeAnswerWhenNotStreamed(t *testing.T) {
	script := &Script{Steps: []Step{{Reply: Reply{Text: "hi", Usage: Usage{Input: 5, CacheRead: 3, Output: 2}}}}}
	s := start(t, "openai-chat", script)
	status, evs := post(t, s.URL(), "/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"hello"}]}`)
	c := evs[0]["choices"].([]any)[0].(map[string]any)
	if status != 200 || c["message"].(map[string]any)["content"] != "hi" || c["finish_reason"] != "stop" || evs[0]["usage"].(map[string]any)["prompt_tokens"] != 8.0 {
		t.Errorf("%d %v", status, evs)
	}
}

// OpenCode 1.18 (through @ai-sdk/openai-compatible) asks Chat
// Completions for a session's title first, with no tools: a side request,
// answered separately. Then comes the conversation: the prompt as
// opencode run sends it (in double quotes, since it quotes an argument
// holding a space), the assistant's tool call with empty content, and
// the tool's output.
func TestChatServesOpenCodesRequests(t *testing.T) {
	script := &Script{Steps: []Step{
		{Prompt: "Write hello.txt with the shell.", Reply: Reply{ToolCalls: []ToolCall{{ID: "call_1", Name: "bash", Input: map[string]any{"command": "true"}}}}},
		{Results: []string{"call_1"}, Reply: Reply{Text: "done"}},
	}}
	s := start(t, "openai-chat", script)
	const tools = `"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}},{"type":"function","function":{"name":"write"}}],"tool_choice":"auto"`
	status, evs := post(t, s.URL(), "/v1/chat/completions", `{"model":"gpt-4.1","max_tokens":32000,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"You are a title generator."},{"role":"user","content":"Generate a title for this conversation:\n"},{"role":"user","content":"\"Write hello.txt with the shell.\""}]}`)
	if status != 200 || script.Served() != 0 || !s.Exchanges()[0].Request.Side {
		t.Fatalf("the title request: %d, %d steps served, %v", status, script.Served(), evs)
	}
	status, _ = post(t, s.URL(), "/v1/chat/completions", `{"model":"gpt-4.1","max_tokens":32000,`+tools+`,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"You are opencode."},{"role":"user","content":"\"Write hello.txt with the shell.\""}]}`)
	if status != 200 || script.Served() != 1 {
		t.Fatalf("the prompt: %d, %d steps served", status, script.Served())
	}
	status, evs = post(t, s.URL(), "/v1/chat/completions", `{"model":"gpt-4.1","max_tokens":32000,`+tools+`,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"You are opencode."},{"role":"user","content":"\"Write hello.txt with the shell.\""},{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"true\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"(no output)"}]}`)
	if status != 200 || script.Served() != 2 || evs[len(evs)-1]["usage"] == nil {
		t.Fatalf("the tool's result: %d, %d steps served, %v", status, script.Served(), evs)
	}
	if it := s.Exchanges()[2].Request.Items; len(it) != 4 || it[2].Kind != ItemToolCall || it[2].Text != `{"command":"true"}` || it[3].Text != "(no output)" {
		t.Errorf("read as %+v", it)
	}
}

// A server that does not keep its exchanges keeps nothing of a request
// once answered: replay --serve kept every body, and ten posts of
// 24 MiB took it from 94 to 340 MiB.
func TestServerKeepsNoRequestUnlessAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, "openai-responses", Options{Addr: "127.0.0.1:0"}, &Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := `{"model":"m","input":"` + strings.Repeat("x", 1<<20) + `"}`
	for range 3 {
		if status, _ := post(t, s.URL(), "/v1/responses", big); status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
	}
	post(t, s.URL(), "/nowhere", "{}")
	if got := s.Exchanges(); len(got) != 0 {
		t.Errorf("kept %d exchanges", len(got))
	}
}
