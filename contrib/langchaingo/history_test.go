package langchaingo_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/memory"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/contrib/langchaingo"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// git runs the real git in dir and returns its trimmed output.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir
}

// openRepo opens the repository at dir through git-snap's front door.
func openRepo(t testing.TB, dir string) *gitsnap.Repository {
	t.Helper()
	r, err := gitsnap.Open(context.Background(), dir, gitsnap.Options{
		GitEnv: gitstore.GitEnv{CommitterName: "test", CommitterEmail: "test@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func newHistory(t testing.TB, store *gitsnap.Repository, session string) *langchaingo.History {
	t.Helper()
	h, err := langchaingo.New(store, session)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// history returns a session's snapshots, oldest first, and their documents.
func history(t testing.TB, s *gitsnap.Repository, session string) ([]storage.Entry, []map[string]any) {
	t.Helper()
	ctx := context.Background()
	tip, err := s.SessionTip(session)
	must(t, err)
	var entries []storage.Entry
	if !tip.IsZero() {
		must(t, s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
			entries = append([]storage.Entry{e}, entries...)
			return nil
		}))
	}
	docs := make([]map[string]any, len(entries))
	for i, e := range entries {
		var err error
		docs[i], _, err = s.Read(ctx, e.ID)
		must(t, err)
	}
	return entries, docs
}

// everyType is one message of each of LangChainGo's types, with every
// field set.
var everyType = []llms.ChatMessage{
	llms.SystemChatMessage{Content: "You are terse."},
	llms.HumanChatMessage{Content: "What is 6×7? Use the tool."},
	llms.AIChatMessage{
		Content:          "",
		ReasoningContent: "multiply",
		ToolCalls:        []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "multiply", Arguments: `{"a":6,"b":7}`}}},
	},
	llms.ToolChatMessage{ID: "call_1", Content: "42"},
	llms.AIChatMessage{Content: "old style", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{}`}},
	llms.FunctionChatMessage{Name: "lookup", Content: "found"},
	llms.GenericChatMessage{Role: "critic", Name: "bob", Content: "fine"},
	llms.GenericChatMessage{Role: "user", Content: "a generic message in a known role"},
	llms.AIChatMessage{Content: "It is 42."},
}

func TestEveryMessageTypeReadsBackAsItWasAdded(t *testing.T) {
	ctx := context.Background()
	store := openRepo(t, newRepo(t))
	h := newHistory(t, store, "types")
	for _, m := range everyType {
		must(t, h.AddMessage(ctx, m))
	}
	got, err := h.Messages(ctx)
	must(t, err)
	if !reflect.DeepEqual(got, everyType) {
		t.Fatalf("read back:\n%#v\nwant:\n%#v", got, everyType)
	}
	// Every change a snapshot, labelled with what was added.
	entries, _ := history(t, store, "types")
	if len(entries) != len(everyType) {
		t.Fatalf("%d snapshots for %d messages", len(entries), len(everyType))
	}
	for i, e := range entries {
		want := langchaingo.LabelAdd + " " + string(everyType[i].GetType())
		if e.Header.Label != want || e.Header.Messages != i+1 || e.Header.Source != langchaingo.Source {
			t.Errorf("snapshot %d: %+v, want label %q and %d messages", i, e.Header, want, i+1)
		}
	}
}

func TestStoredMessagesAreWhatGitSnapReads(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	store := openRepo(t, dir)
	h := newHistory(t, store, "shape")
	must(t, h.SetMessages(ctx, everyType))
	doc, _, err := store.ReadRevision(ctx, "shape")
	must(t, err)
	st := snapshot.ComputeStats(doc, nil)
	if st.Messages != len(everyType) || st.ToolCalls != 1 || st.ModelCalls != 3 {
		t.Fatalf("stats: %+v; want %d messages, 1 tool call, 3 model calls", st, len(everyType))
	}
	msgs := doc["messages"].([]any)
	call := snapshot.ViewMessage(msgs[2])
	if call.Role != "assistant" || len(call.Parts) != 1 || call.Parts[0].Kind != snapshot.PartToolCall || call.Parts[0].Tool != "multiply" || call.Parts[0].CallID != "call_1" {
		t.Fatalf("the tool call reads as %+v", call)
	}
	result := snapshot.ViewMessage(msgs[3])
	if result.Role != "tool" || result.Parts[0].Kind != snapshot.PartToolResult || result.Parts[0].CallID != "call_1" || result.Parts[0].Text != "42" {
		t.Fatalf("the tool result reads as %+v", result)
	}
	// In git: one blob per message, JSON an outsider can read.
	first := git(t, dir, "show", "refs/snap/shape:messages/0000/000001.json")
	if !strings.Contains(first, `"role": "user"`) || !strings.Contains(first, `"type": "human"`) {
		t.Fatalf("messages/0000/000001.json:\n%s", first)
	}
}

func TestMessagesFromOtherProgramsRead(t *testing.T) {
	ctx := context.Background()
	store := openRepo(t, newRepo(t))
	doc := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello"}}},
		map[string]any{"role": "assistant", "content": "hi", "tool_calls": []any{
			map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}},
		}},
		map[string]any{"role": "developer", "content": "be brief"},
		map[string]any{"role": "narrator", "content": "later"},
	}}
	_, err := store.Save(ctx, doc, storage.SaveOptions{Session: "foreign"})
	must(t, err)
	got, err := newHistory(t, store, "foreign").Messages(ctx)
	must(t, err)
	want := []llms.ChatMessage{
		llms.HumanChatMessage{Content: "hello"},
		llms.AIChatMessage{Content: "hi", ToolCalls: []llms.ToolCall{{ID: "c", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: "{}"}}}},
		llms.SystemChatMessage{Content: "be brief"},
		llms.GenericChatMessage{Role: "narrator", Content: "later"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read:\n%#v\nwant:\n%#v", got, want)
	}
}

func TestClearAndSetMessagesKeepHistory(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	store := openRepo(t, dir)
	h := newHistory(t, store, "chat")

	must(t, h.Clear(ctx))
	if tip, _ := store.SessionTip("chat"); !tip.IsZero() {
		t.Fatal("clearing an empty history wrote a snapshot")
	}
	if msgs, err := h.Messages(ctx); err != nil || msgs == nil || len(msgs) != 0 {
		t.Fatalf("Messages of a new history = %#v, %v", msgs, err)
	}
	must(t, h.AddUserMessage(ctx, "one"))
	must(t, h.AddAIMessage(ctx, "two"))
	must(t, h.Clear(ctx))
	if msgs, _ := h.Messages(ctx); len(msgs) != 0 {
		t.Fatalf("after Clear: %v", msgs)
	}
	must(t, h.AddUserMessage(ctx, "three"))
	must(t, h.SetMessages(ctx, []llms.ChatMessage{llms.SystemChatMessage{Content: "summary: one, two, three"}}))

	entries, docs := history(t, store, "chat")
	labels := []string{}
	for _, e := range entries {
		labels = append(labels, fmt.Sprintf("%s/%d", e.Header.Label, e.Header.Messages))
	}
	want := "AddMessage human/1 AddMessage ai/2 Clear/0 AddMessage human/1 SetMessages/1"
	if strings.Join(labels, " ") != want {
		t.Fatalf("history: %s\nwant:    %s", strings.Join(labels, " "), want)
	}
	// What Clear replaced is still there, and git agrees.
	before := docs[1]["messages"].([]any)
	if len(before) != 2 || before[1].(map[string]any)["content"] != "two" {
		t.Fatalf("the cleared conversation: %v", before)
	}
	if n := git(t, dir, "rev-list", "--count", "refs/snap/chat"); n != "5" {
		t.Fatalf("git sees %s commits", n)
	}
	if got := git(t, dir, "show", "refs/snap/chat~2:snapshot.json"); !strings.Contains(got, `"messages": []`) {
		t.Fatalf("the Clear snapshot's snapshot.json:\n%s", got)
	}
	git(t, dir, "fsck", "--strict")
}

func TestOtherMembersOfTheSessionSurvive(t *testing.T) {
	ctx := context.Background()
	store := openRepo(t, newRepo(t))
	_, err := store.Save(ctx, map[string]any{"config": map[string]any{"model": "m1"}}, storage.SaveOptions{Session: "mixed"})
	must(t, err)
	h := newHistory(t, store, "mixed")
	must(t, h.AddUserMessage(ctx, "hi"))
	must(t, h.Clear(ctx))
	must(t, h.SetMessages(ctx, []llms.ChatMessage{llms.AIChatMessage{Content: "x"}}))
	_, docs := history(t, store, "mixed")
	for i, d := range docs {
		if !snapshot.Equal(d["config"], map[string]any{"model": "m1"}) {
			t.Fatalf("snapshot %d lost config: %v", i, d)
		}
	}
}

func TestConcurrentAddsLoseNothing(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	hs := []*langchaingo.History{newHistory(t, openRepo(t, dir), "busy"), newHistory(t, openRepo(t, dir), "busy")}
	const writers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				errs <- hs[w%2].AddUserMessage(ctx, fmt.Sprintf("w%d-%d", w, i))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	msgs, err := hs[0].Messages(ctx)
	must(t, err)
	if len(msgs) != writers*each {
		t.Fatalf("%d messages in the tip, want %d", len(msgs), writers*each)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		seen[m.GetContent()] = true
	}
	for w := range writers {
		for i := range each {
			if !seen[fmt.Sprintf("w%d-%d", w, i)] {
				t.Errorf("message w%d-%d was lost", w, i)
			}
		}
	}
}

func TestNewRefusesBadSessionNames(t *testing.T) {
	store := openRepo(t, newRepo(t))
	for _, s := range []string{"", "a/b", "-x", "a..b", "x.lock"} {
		if _, err := langchaingo.New(store, s); err == nil {
			t.Errorf("New accepted session %q", s)
		}
	}
}

// recordingLLM is LangChainGo's fake model, noting the prompts it gets,
// to show what the chain's memory put in them.
type recordingLLM struct {
	*fake.LLM
	prompts []string
}

func (r *recordingLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				r.prompts = append(r.prompts, t.Text)
			}
		}
	}
	return r.LLM.GenerateContent(ctx, msgs, opts...)
}

// converse says one thing in the conversation kept in the repository at
// dir, and returns the reply and the prompt the model was given.
func converse(ctx context.Context, dir, input, reply string) (string, string, error) {
	store, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return "", "", err
	}
	defer store.Close()
	h, err := langchaingo.New(store, "conversation")
	if err != nil {
		return "", "", err
	}
	llm := &recordingLLM{LLM: fake.NewFakeLLM([]string{reply})}
	chain := chains.NewConversation(llm, memory.NewConversationBuffer(memory.WithChatHistory(h)))
	out, err := chains.Run(ctx, chain, input)
	return out, strings.Join(llm.prompts, "\n"), err
}

// TestHelperProcess is the second process of the conversation test.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("LANGCHAINGO_HELPER_REPO")
	if dir == "" {
		t.Skip("run by TestConversationAcrossProcesses in a process of its own")
	}
	out, prompt, err := converse(context.Background(), dir, "What is my name?", "Your name is Ada.")
	if err != nil {
		fmt.Printf("HELPER-ERROR: %v\n", err)
		return
	}
	fmt.Printf("HELPER-OUT: %q\nHELPER-PROMPT: %q\n", out, prompt)
}

func TestConversationAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	out, prompt, err := converse(ctx, dir, "Hi, my name is Ada.", "Nice to meet you, Ada!")
	must(t, err)
	if out != "Nice to meet you, Ada!" || strings.Count(prompt, "Human:") != 1 { // no history yet
		t.Fatalf("first turn: %q, prompt %q", out, prompt)
	}

	// A fresh process, with nothing but the repository, goes on with it.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "LANGCHAINGO_HELPER_REPO="+dir)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, b)
	}
	var got, gotPrompt string
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "HELPER-OUT: "); ok {
			got, err = strconv.Unquote(v)
			must(t, err)
		}
		if v, ok := strings.CutPrefix(line, "HELPER-PROMPT: "); ok {
			gotPrompt, err = strconv.Unquote(v)
			must(t, err)
		}
		if strings.HasPrefix(line, "HELPER-ERROR: ") {
			t.Fatal(line)
		}
	}
	if got != "Your name is Ada." {
		t.Fatalf("second process replied %q:\n%s", got, b)
	}
	// The second process's prompt held the first's conversation.
	if !strings.Contains(gotPrompt, "Human: Hi, my name is Ada.\nAI: Nice to meet you, Ada!\nHuman: What is my name?") {
		t.Fatalf("second process's prompt lacks the first's history:\n%s", gotPrompt)
	}

	// Four snapshots, one per message, in the real git.
	log := git(t, dir, "log", "--format=%s", "refs/snap/conversation")
	if log != "AddMessage ai\nAddMessage human\nAddMessage ai\nAddMessage human" {
		t.Fatalf("git log:\n%s", log)
	}
	if msg := git(t, dir, "show", "refs/snap/conversation:messages/0000/000003.json"); !strings.Contains(msg, `"content": "Your name is Ada."`) {
		t.Fatalf("last message in git:\n%s", msg)
	}
	git(t, dir, "fsck", "--strict")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
