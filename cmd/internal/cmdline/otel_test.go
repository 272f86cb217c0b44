package cmdline

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/git-snap/git-snap/otel"
)

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func spansOf(td *tracepb.TracesData) []*tracepb.Span {
	var out []*tracepb.Span
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

var hexID = regexp.MustCompile(`"(traceId|spanId|parentSpanId)":"([^"]*)"`)

// checkTrace checks one session's OTLP/JSON against its stats.
func checkTrace(t *testing.T, name string, data []byte, run func(args ...string) []byte) {
	t.Helper()
	for _, m := range hexID.FindAllStringSubmatch(string(data), -1) {
		want := 16
		if m[1] == "traceId" {
			want = 32
		}
		if !regexp.MustCompile(`^[0-9a-f]+$`).MatchString(m[2]) || len(m[2]) != want {
			t.Fatalf("%s: %s %q is not %d hex digits, as OTLP/JSON has them", name, m[1], m[2], want)
		}
	}
	td, err := otel.Unmarshal(data)
	if err != nil {
		t.Fatalf("%s: OTLP/JSON does not parse: %v", name, err)
	}
	var st struct {
		ToolCalls    int   `json:"tool_calls"`
		ToolFailures int   `json:"tool_failures"`
		ModelCalls   int   `json:"model_calls"`
		Input        int64 `json:"input_tokens"`
		CacheRead    int64 `json:"cache_read_tokens"`
		CacheWrite   int64 `json:"cache_write_tokens"`
		Output       int64 `json:"output_tokens"`
	}
	if err := json.Unmarshal(run("stats", "--json", name), &st); err != nil {
		t.Fatal(err)
	}
	spans := spansOf(td)
	ids := map[string]bool{}
	for _, s := range spans {
		if ids[string(s.SpanId)] {
			t.Errorf("%s: span id %x twice", name, s.SpanId)
		}
		ids[string(s.SpanId)] = true
	}
	roots, chats, tools, failed := 0, 0, 0, 0
	var in, out, cacheRead, cacheWrite int64
	for _, s := range spans {
		if !bytes.Equal(s.TraceId, spans[0].TraceId) {
			t.Errorf("%s: span %s in another trace", name, s.Name)
		}
		if len(s.ParentSpanId) == 0 {
			roots++
		} else if !ids[string(s.ParentSpanId)] {
			t.Errorf("%s: span %s has a parent that is not in the trace", name, s.Name)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano {
			t.Errorf("%s: span %s ends before it starts", name, s.Name)
		}
		if v := attr(s, otel.AttrConversation); v.GetStringValue() != name {
			t.Errorf("%s: span %s: conversation id %v", name, s.Name, v)
		}
		switch attr(s, otel.AttrOperation).GetStringValue() {
		case otel.OpChat:
			chats++
			in += attr(s, otel.AttrInputTokens).GetIntValue()
			out += attr(s, otel.AttrOutputTokens).GetIntValue()
			cacheRead += attr(s, otel.AttrCacheRead).GetIntValue()
			cacheWrite += attr(s, otel.AttrCacheWrite).GetIntValue()
			if s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
				t.Errorf("%s: chat span of kind %v", name, s.Kind)
			}
		case otel.OpExecuteTool:
			tools++
			if attr(s, otel.AttrToolName).GetStringValue() == "" {
				t.Errorf("%s: tool span %s names no tool", name, s.Name)
			}
			if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				failed++
			}
		case otel.OpInvokeAgent:
		default:
			t.Errorf("%s: span %s has no known operation", name, s.Name)
		}
	}
	if roots != 1 {
		t.Errorf("%s: %d root spans", name, roots)
	}
	if chats != st.ModelCalls || tools != st.ToolCalls || failed != st.ToolFailures {
		t.Errorf("%s: %d chat spans, %d tool spans, %d failed; stats %d model calls, %d tool calls, %d failed", name, chats, tools, failed, st.ModelCalls, st.ToolCalls, st.ToolFailures)
	}
	if in != st.Input+st.CacheRead+st.CacheWrite || out != st.Output || cacheRead != st.CacheRead || cacheWrite != st.CacheWrite {
		t.Errorf("%s: chat spans' tokens in %d out %d cache read %d write %d; stats %d, %d, %d, %d", name, in, out, cacheRead, cacheWrite, st.Input+st.CacheRead+st.CacheWrite, st.Output, st.CacheRead, st.CacheWrite)
	}
}

// TestOTelRealSessions exports every real session of testdata as OTLP
// traces, parses them with the OTLP protobuf definitions and checks
// spans, tokens and failures against stats.
func TestOTelRealSessions(t *testing.T) {
	_, _, run := realRepo(t)
	for _, name := range realSessionNames(t, run) {
		data := run("export", name, "--format", "otel")
		checkTrace(t, name, data, run)
		if again := run("export", name, "--format", "otel"); !bytes.Equal(data, again) {
			t.Errorf("%s: two exports of the same snapshot differ", name)
		}
	}
}

// TestOTelEndpoint sends a session's traces to an OTLP/HTTP receiver on
// 127.0.0.1 and checks what it receives; a receiver that refuses them
// fails the export.
func TestOTelEndpoint(t *testing.T) {
	dir, vars, run := realRepo(t)
	var mu sync.Mutex
	var got []byte
	var path, ctype string
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, path, ctype = body, r.URL.Path, r.Header.Get("Content-Type")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer ok.Close()
	name := realSessionNames(t, run)[0]
	msg := run("export", name, "--format", "otel", "--endpoint", ok.URL)
	if !strings.Contains(string(msg), "sent ") {
		t.Errorf("export --endpoint said %q", msg)
	}
	mu.Lock()
	body, p, ct := got, path, ctype
	mu.Unlock()
	if p != "/v1/traces" || ct != "application/json" {
		t.Errorf("request to %q with Content-Type %q", p, ct)
	}
	if want := run("export", name, "--format", "otel"); !bytes.Equal(body, want) {
		t.Errorf("the receiver got other traces than export prints")
	}
	checkTrace(t, name, body, run)

	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "quota exceeded", http.StatusTooManyRequests)
	}))
	defer refuse.Close()
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"export", name, "--format", "otel", "--endpoint", refuse.URL}, 1, "quota exceeded"},
		{[]string{"export", name, "--format", "otel", "--endpoint", "ftp://127.0.0.1/"}, 2, "not an http"},
		{[]string{"export", name, "--format", "json", "--endpoint", ok.URL}, 2, "--endpoint goes with --format otel"},
	} {
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
		if code := e.run(t.Context(), c.args); code != c.code || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("%v: exit %d (want %d), said %q", c.args, code, c.code, errOut.String())
		}
	}
}

// TestOTelSendsNoTextNorCredentials: the traces carry no text of the
// session, not even a failed tool's output as a status message; no
// message shows the endpoint's credentials (user:password@, ?api_key=),
// whether the receiver refuses, cannot be reached or the export works;
// and a redirect to another host is refused before anything is posted
// there, while one on the endpoint's own host is followed.
func TestOTelSendsNoTextNorCredentials(t *testing.T) {
	w := newLeakWorld(t)
	doc := `{"messages": [{"role": "user", "content": "deploy it"},
		{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "cat /home/ada/.pgpass"}}]},
		{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": true, "content": "permission denied: /home/ada/.pgpass holds hunter2"}]}]}`
	w.run("", "save", "-s", "failed", w.file("failed.json", doc))
	traces := w.run("", "export", "--format", "otel", "failed")
	for _, text := range []string{"hunter2", ".pgpass", "deploy it", "permission denied"} {
		if strings.Contains(traces, text) {
			t.Errorf("the traces hold %q:\n%s", text, traces)
		}
	}
	if !strings.Contains(traces, `"STATUS_CODE_ERROR"`) && !strings.Contains(traces, `"code":2`) && !strings.Contains(traces, `"code": 2`) {
		t.Errorf("the failed call has no error status:\n%s", traces)
	}

	var mu sync.Mutex
	hits := map[string]int{}
	count := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[name+" "+r.URL.Path]++
			mu.Unlock()
			switch r.URL.Path {
			case "/refuse":
				http.Error(w, "quota exceeded", http.StatusTooManyRequests)
			default:
				_, _ = io.WriteString(w, `{}`)
			}
		}
	}
	other := httptest.NewServer(count("other"))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/traces", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/traces", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/", count("home"))
	home := httptest.NewServer(mux)
	defer home.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	withCreds := func(base, path string) string {
		return strings.Replace(base, "http://", "http://ada:pw-s3cret@", 1) + path + "?api_key=k3y-s3cret&tenant=acme"
	}
	for _, c := range []struct {
		endpoint string
		code     int
		says     string
	}{
		{withCreds(home.URL, "/refuse"), 1, "quota exceeded"},
		{withCreds(closedURL, "/v1/traces"), 1, "otlp export to"},
		{withCreds(home.URL, "/away"), 1, "another host"},
		{"http://ada:pw-s3cret@[::1/v1/traces?api_key=k3y-s3cret", 2, "not an http"},
		{withCreds(home.URL, "/moved"), 0, "sent "},
	} {
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: w.dir, getenv: w.getenv}
		code := e.run(t.Context(), []string{"export", "--format", "otel", "--endpoint", c.endpoint, "failed"})
		said := out.String() + errOut.String()
		if code != c.code || !strings.Contains(said, c.says) {
			t.Errorf("%s: exit %d (want %d), said %q", c.endpoint, code, c.code, said)
		}
		if strings.Contains(said, "s3cret") {
			t.Errorf("%s: a credential shown: %q", c.endpoint, said)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["other /v1/traces"] != 0 || hits["home /v1/traces"] != 1 {
		t.Errorf("requests received: %v; want none on the other host, one after the redirect on the endpoint's own", hits)
	}
}
