package viewer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// hookedSession is a Claude Code session recorded into a real repository
// by the hook's own path (gitsnap.RecordHook, what git snap hook
// claude-code runs), one call at a time, from a real transcript's lines.
type hookedSession struct {
	dir, id, transcript string
}

func newHookedSession(t *testing.T, id string) *hookedSession {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "--allow-empty", "-m", "code"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return &hookedSession{dir: dir, id: id, transcript: filepath.Join(t.TempDir(), id+".jsonl")}
}

// call appends lines to the transcript (replaces it, with rewrite) and
// records a hook call on it, as a separate process would: its own
// repository handle.
func (h *hookedSession) call(t *testing.T, rewrite bool, lines ...[]byte) {
	t.Helper()
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if rewrite {
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(h.transcript, flags, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(append(bytes.Join(lines, []byte("\n")), '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if added := claudeHook(t, h.dir, h.id, h.transcript, `"hook_event_name":"PostToolUse","tool_name":"Read"`); !added {
		t.Fatal("the hook call recorded nothing")
	}
}

// claudeHook records a Claude Code hook call (its payload's event
// fields given) on session id's transcript into the repository at dir,
// as git snap hook claude-code does: its own repository handle, as a
// process of its own has.
func claudeHook(t *testing.T, dir, id, transcript, event string) bool {
	t.Helper()
	ctx := context.Background()
	repo, err := gitsnap.Open(ctx, dir, gitsnap.Options{GitEnv: gitstore.GitEnv{CommitterName: "Ada", CommitterEmail: "ada@example.com", ConfigNoSystem: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	a, err := agent.Lookup("claude-code", agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,%s}`, id, transcript, dir, event)
	p, err := a.Decode([]byte(payload), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, added, err := repo.RecordHook(ctx, a, p, gitsnap.HookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return added
}

// transcriptLines is a real transcript's lines.
func transcriptLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	return out
}

// countingStore is a real store that counts the records, whole
// snapshot.json, commits and first records' checks read through it.
type countingStore struct {
	*gitstore.Store
	messages, rests, entries, firsts atomic.Int64
}

func (c *countingStore) Entry(ctx context.Context, id storage.ID) (storage.Entry, error) {
	c.entries.Add(1)
	return c.Store.Entry(ctx, id)
}

func (c *countingStore) FirstBlocks(ctx context.Context, e storage.Entry, n int) ([]storage.BlockID, error) {
	c.firsts.Add(1)
	return c.Store.FirstBlocks(ctx, e, n)
}

func (c *countingStore) Message(ctx context.Context, id storage.MessageID) (any, error) {
	c.messages.Add(1)
	return c.Store.Message(ctx, id)
}

func (c *countingStore) ReadWithoutMessages(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	c.rests.Add(1)
	return c.Store.ReadWithoutMessages(ctx, id)
}

// viewerOn is a viewer of the repository at dir, on a store of its own,
// and the store with its counters.
func viewerOn(t *testing.T, dir string) (*Server, *countingStore) {
	t.Helper()
	st, err := gitstore.Open(context.Background(), dir, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &countingStore{Store: st}
	srv, err := New(c, Options{Addr: "127.0.0.1:7414"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// shown is what the sessions page shows of a session, and what its
// tip is.
type shown struct {
	Name, Rev, Remote, Tip, Title, Branch string
	First, Last                           string
	Numbers                               counts
	Tokens                                int64
}

// sessionsPage is the summaries the sessions page of srv lists, by
// session, each read (as sorting by tokens reads them).
func sessionsPage(t *testing.T, srv *Server) map[string]shown {
	t.Helper()
	v, err := srv.sessions(context.Background(), parseSessionsQuery(url.Values{"sort": {"tokens"}}))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]shown{}
	for _, s := range v.Rows {
		if !s.read {
			t.Fatalf("session %s listed unread", s.Name)
		}
		out[s.Name] = shown{s.Name, s.Rev(), s.Remote, s.Tip.ID.String(), s.Title, s.Branch, s.First().String(), s.Last().String(), s.Numbers, s.Tokens}
	}
	return out
}

// sameAsFresh fails unless the running viewer's sessions page says what
// a viewer started now on the same repository says: the reference.
func sameAsFresh(t *testing.T, srv *Server, dir, when string) map[string]shown {
	t.Helper()
	got := sessionsPage(t, srv)
	fresh, _ := viewerOn(t, dir)
	want := sessionsPage(t, fresh)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: the running viewer shows\n%+v\na new viewer shows\n%+v", when, got, want)
	}
	return got
}

const (
	longTranscript  = "../testdata/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
	otherTranscript = "../testdata/claude-code/tool_heavy.jsonl"
)

// After each of several hook calls that append records, a running
// viewer's sessions page shows what a new viewer shows (title, branch,
// numbers, times), and it shows it without reading a record or a whole
// snapshot.json: the title and branch are the ones read before, the
// records they came from being the same. A session of 40 records has
// them in a block the calls add to; one of 300, in a block they leave
// as it is.
func TestSessionsPageAfterHookCallsReadsNoRecord(t *testing.T) {
	lines := transcriptLines(t, longTranscript)
	for k, start := range []int{40, 300} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			h := newHookedSession(t, fmt.Sprintf("ca7e0000-0000-4000-8000-00000000010%d", k))
			h.call(t, false, lines[:start]...)
			srv, store := viewerOn(t, h.dir)
			first := sameAsFresh(t, srv, h.dir, "the first call")[h.id]
			if first.Title == "" || first.Branch == "" {
				t.Fatalf("the session shows title %q, branch %q: the transcript's first records name both", first.Title, first.Branch)
			}
			next := start
			for call := range 6 {
				h.call(t, false, lines[next:next+7]...)
				next += 7
				messages, rests := store.messages.Load(), store.rests.Load()
				got := sameAsFresh(t, srv, h.dir, fmt.Sprintf("hook call %d", call+2))[h.id]
				if m, r := store.messages.Load()-messages, store.rests.Load()-rests; m != 0 || r != 0 {
					t.Errorf("hook call %d appended records: the page read %d records and %d whole snapshot.json, want none", call+2, m, r)
				}
				if got.Tip == first.Tip || got.Numbers.Records <= first.Numbers.Records {
					t.Fatalf("hook call %d: the page shows tip %s with %d records, the same as the first call's", call+2, got.Tip, got.Numbers.Records)
				}
			}
		})
	}
}

// A transcript rewritten from its start (another conversation in the
// same file, as when it is replaced) leaves the records stored before
// where they were, and makes the new ones the live ones: the page's
// title follows them, as a new viewer's does. With 300 records before,
// the block that holds the first ones stays as it was: only which
// records are live says the title changed.
func TestSessionsPageTitleFollowsARewrittenTranscript(t *testing.T) {
	long, other := transcriptLines(t, longTranscript), transcriptLines(t, otherTranscript)
	for k, start := range []int{40, 300} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			h := newHookedSession(t, fmt.Sprintf("ca7e0000-0000-4000-8000-00000000020%d", k))
			h.call(t, false, long[:start]...)
			srv, _ := viewerOn(t, h.dir)
			before := sameAsFresh(t, srv, h.dir, "the first call")[h.id]
			h.call(t, true, other...)
			after := sameAsFresh(t, srv, h.dir, "the rewritten transcript")[h.id]
			if after.Title == before.Title {
				t.Fatalf("the transcript was rewritten with another conversation: the title stays %q", after.Title)
			}
			h.call(t, false, other[:3]...) // appended to the rewritten one: the title stays the new one
			sameAsFresh(t, srv, h.dir, "a call after the rewrite")
		})
	}
}

// A snapshot saved over the session whose first records differ (the
// same places, live as before, other content: a rewrite of the
// document) changes the page's title, a prune that rewrites the
// session's commits but not their content keeps it, and the same
// records saved by another agent change it again.
func TestSessionsPageTitleFollowsRewrittenFirstRecords(t *testing.T) {
	ctx := context.Background()
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000003")
	lines := transcriptLines(t, longTranscript)
	h.call(t, false, lines[:40]...)
	h.call(t, false, lines[40:45]...)
	srv, _ := viewerOn(t, h.dir)
	before := sameAsFresh(t, srv, h.dir, "two calls")[h.id]

	st, err := gitstore.Open(ctx, h.dir, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tip, err := st.SessionTip(h.id)
	if err != nil {
		t.Fatal(err)
	}
	doc, e, err := st.Read(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc["messages"].([]any)
	prompt := -1
	for i, m := range msgs {
		if rec, _ := m.(map[string]any); rec["type"] == "user" {
			if msg, _ := rec["message"].(map[string]any); msg != nil {
				if s, ok := msg["content"].(string); ok && len(s) > 0 && s[0] != '<' {
					msg["content"] = "a prompt rewritten in place"
					prompt = i
					break
				}
			}
		}
	}
	if prompt < 0 {
		t.Fatal("no typed prompt among the first records")
	}
	if _, err := st.Save(ctx, doc, storage.SaveOptions{Session: h.id, Source: e.Header.Source}); err != nil {
		t.Fatal(err)
	}
	after := sameAsFresh(t, srv, h.dir, "the first records rewritten")[h.id]
	if after.Title == before.Title || after.Title != "a prompt rewritten in place" {
		t.Fatalf("the first prompt was rewritten: the title is %q, was %q", after.Title, before.Title)
	}

	if _, err := st.Prune(ctx, h.id, gitstore.PruneOptions{KeepLast: 1}); err != nil {
		t.Fatal(err)
	}
	pruned := sameAsFresh(t, srv, h.dir, "the session pruned")[h.id]
	if pruned.Tip == after.Tip || pruned.Title != after.Title {
		t.Fatalf("pruned: tip %s (was %s), title %q (was %q)", pruned.Tip, after.Tip, pruned.Title, after.Title)
	}

	// The same records saved by another agent: read as that agent's
	// (Codex finds no prompt of its own among Claude Code's records).
	doc, _, err = st.Read(ctx, mustTip(t, st, h.id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Save(ctx, doc, storage.SaveOptions{Session: h.id, Source: "codex"}); err != nil {
		t.Fatal(err)
	}
	if other := sameAsFresh(t, srv, h.dir, "saved by another agent")[h.id]; other.Title == pruned.Title {
		t.Fatalf("the records saved as Codex's: the title stays %q", other.Title)
	}
}

// New sessions, a session gone and a session started again under the
// same name all show on the next page as a new viewer shows them.
func TestSessionsPageFollowsSessionsComingAndGoing(t *testing.T) {
	ctx := context.Background()
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000004")
	long, other := transcriptLines(t, longTranscript), transcriptLines(t, otherTranscript)
	h.call(t, false, long[:40]...)
	srv, _ := viewerOn(t, h.dir)
	sameAsFresh(t, srv, h.dir, "one session")
	h2 := &hookedSession{dir: h.dir, id: "ca7e0000-0000-4000-8000-000000000005", transcript: filepath.Join(t.TempDir(), "second.jsonl")}
	h2.call(t, false, other...)
	if got := sameAsFresh(t, srv, h.dir, "a second session"); len(got) != 2 {
		t.Fatalf("two sessions recorded, the page lists %d", len(got))
	}
	st, err := gitstore.Open(ctx, h.dir, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Drop(ctx, h.id, false); err != nil {
		t.Fatal(err)
	}
	if got := sameAsFresh(t, srv, h.dir, "the first dropped"); len(got) != 1 {
		t.Fatalf("one session dropped, the page lists %d", len(got))
	}
	h.transcript = filepath.Join(t.TempDir(), "again.jsonl") // the same session id, another conversation
	h.call(t, false, other[:10]...)
	sameAsFresh(t, srv, h.dir, "the first started again")
}

// A session whose first records name no prompt, then no branch, takes
// them from the records later calls append: what the page read before
// could not say there would be none.
func TestSessionsPageTitleAndBranchFromRecordsAppended(t *testing.T) {
	lines := transcriptLines(t, longTranscript)
	noBranch := func(ls [][]byte) [][]byte { // as a session started outside a branch records them
		var out [][]byte
		for _, l := range ls {
			out = append(out, bytes.ReplaceAll(l, []byte(`"gitBranch":"spotter-dov"`), []byte(`"gitBranch":""`)))
		}
		return out
	}
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000006")
	h.call(t, false, lines[:2]...) // the file-history snapshots before the first prompt
	srv, _ := viewerOn(t, h.dir)
	if got := sameAsFresh(t, srv, h.dir, "no prompt yet")[h.id]; got.Title != "" || got.Branch != "" {
		t.Fatalf("before the first prompt: title %q, branch %q", got.Title, got.Branch)
	}
	h.call(t, false, noBranch(lines[2:7])...)
	if got := sameAsFresh(t, srv, h.dir, "a prompt, no branch")[h.id]; got.Title == "" || got.Branch != "" {
		t.Fatalf("the first prompt, no branch: title %q, branch %q", got.Title, got.Branch)
	}
	h.call(t, false, lines[7:15]...)
	if got := sameAsFresh(t, srv, h.dir, "a branch")[h.id]; got.Branch != "spotter-dov" {
		t.Fatalf("records on branch spotter-dov appended: branch %q", got.Branch)
	}
}

func mustTip(t *testing.T, st *gitstore.Store, session string) storage.ID {
	t.Helper()
	h, err := st.SessionTip(session)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Pages asked while hook calls record (two at a time, as two browser
// tabs ask) show, once the calls are done, what a new viewer shows:
// nothing carried over from a tip read half-way is kept.
func TestSessionsPageDuringHookCalls(t *testing.T) {
	lines := transcriptLines(t, longTranscript)
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000007")
	h.call(t, false, lines[:200]...)
	srv, _ := viewerOn(t, h.dir)
	sameAsFresh(t, srv, h.dir, "the first call")
	done := make(chan struct{})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := srv.sessions(context.Background(), parseSessionsQuery(url.Values{"sort": {"tokens"}})); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for call := range 8 {
		h.call(t, false, lines[200+call*5:205+call*5]...)
	}
	close(done)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sameAsFresh(t, srv, h.dir, "eight calls while pages were asked")
}
