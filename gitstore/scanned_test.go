package gitstore_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// twin is two repositories alike: documents are saved into the first as
// Save saves them, parsed whole, and into the second as SaveScanned
// does, read as text; each save must make the same commit, and both
// repositories must hold the same objects and tip caches.
type twin struct {
	dirs   [2]string
	stores [2]*gitstore.Store
	lim    snapshot.Limits
}

func newTwin(t *testing.T, opts gitstore.Options) *twin {
	t.Helper()
	tw := &twin{}
	for i := range tw.dirs {
		tw.dirs[i] = t.TempDir()
		if out, err := exec.Command("git", "init", "-q", tw.dirs[i]).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	tw.open(t, opts)
	return tw
}

// open opens both repositories' stores with opts.
func (tw *twin) open(t *testing.T, opts gitstore.Options) {
	t.Helper()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	opts.Now = func() time.Time { return at }
	opts.Identity = gitstore.Signature{Name: "t", Email: "t@example.com"}
	for i, dir := range tw.dirs {
		s, err := gitstore.Open(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		tw.stores[i] = s
	}
}

// save saves data both ways and returns the commit, or the error both
// gave.
func (tw *twin) save(t *testing.T, data []byte, o storage.SaveOptions) (storage.Entry, error) {
	t.Helper()
	ctx := context.Background()
	var whole, scanned storage.Entry
	doc, errWhole := snapshot.ParseDocument(data, tw.lim)
	if errWhole == nil {
		whole, errWhole = tw.stores[0].Save(ctx, doc, o)
	}
	d, errScanned := snapshot.ScanDocument(data, tw.lim)
	if errScanned == nil {
		scanned, errScanned = tw.stores[1].SaveScanned(ctx, d, o)
	}
	if fmt.Sprint(errWhole) != fmt.Sprint(errScanned) {
		t.Fatalf("%.100s…: Save: %v; SaveScanned: %v", data, errWhole, errScanned)
	}
	if whole.ID != scanned.ID || fmt.Sprint(whole.Header) != fmt.Sprint(scanned.Header) {
		t.Fatalf("%.100s…: Save made %s, SaveScanned %s\n%+v\n%+v", data, whole.ID, scanned.ID, whole.Header, scanned.Header)
	}
	return whole, errWhole
}

// same checks that both repositories hold the same objects (nothing
// more written one way) and the same tip caches.
func (tw *twin) same(t *testing.T) {
	t.Helper()
	var files [2][]string
	for i, dir := range tw.dirs {
		objects := filepath.Join(dir, ".git", "objects")
		err := filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(dir, ".git"), p)
			switch {
			case strings.HasPrefix(p, objects) && !strings.HasPrefix(rel, "objects/pack"):
				files[i] = append(files[i], rel)
			case strings.HasPrefix(rel, "snap/cache/tip/"):
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				files[i] = append(files[i], fmt.Sprintf("%s %x", rel, data))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files[i])
	}
	if !slices.Equal(files[0], files[1]) {
		t.Fatalf("the repositories differ: Save wrote %d objects and caches, SaveScanned %d\n%v\n%v", len(files[0]), len(files[1]), files[0], files[1])
	}
}

// appendOne appends a message to both and checks they agree: the totals
// go on from the tally each save kept.
func (tw *twin) appendOne(t *testing.T, session string, msg any) {
	t.Helper()
	var ids [2]string
	for i, s := range tw.stores {
		e, _, err := s.Append(context.Background(), storage.SaveOptions{Session: session}, func(rest map[string]any) (storage.Delta, error) {
			return storage.Delta{Messages: []any{msg}, Others: rest}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = e.ID.String()
	}
	if ids[0] != ids[1] {
		t.Fatalf("an append on what Save wrote made %s, on what SaveScanned wrote %s", ids[0], ids[1])
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := snapshot.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A scanned save writes what Save writes, generated documents of every
// shape (events, files, unknown members, edge values) saved one after
// another on a few sessions, each saved twice (the second time the tip
// holds its messages), compact or indented.
func TestSaveScannedWritesWhatSaveWrites(t *testing.T) {
	tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
	r := rand.New(rand.NewPCG(41, 42))
	for i := range 24 {
		doc := testdocs.Random(r)
		data := marshal(t, doc)
		if i%3 == 0 {
			data, _ = snapshot.MarshalIndent(doc)
		}
		session := fmt.Sprintf("gen%d", i%4)
		for range 2 {
			if _, err := tw.save(t, data, storage.SaveOptions{Session: session, Label: "gen"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.same(t)
	tw.appendOne(t, "gen1", map[string]any{"role": "user", "content": "one more"})
	tw.same(t)
}

// leaky is a document with secrets in each place a save redacts: a
// message, a message's key, an event, a setting, a top-level key, text
// and base64 files.
func leaky(extra ...any) []byte {
	msgs := []any{
		map[string]any{"role": "user", "content": "deploy with AKIAI44QH8DHBEXAMPLE please"},
		map[string]any{"role": "assistant", "content": "ok", "env": map[string]any{"ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2": "x"}},
		map[string]any{"role": "user", "content": "plain"},
	}
	doc := map[string]any{
		"messages": append(msgs, extra...),
		"events":   []any{map[string]any{"type": "post_tool", "output": "token AKIAI44QH8DHBEXAMPLE"}, map[string]any{"type": "start"}},
		"config":   map[string]any{"env": map[string]any{"GH_TOKEN": "ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2"}},
		"ghp_b1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2": "a top-level key that is a secret",
		"files": map[string]any{
			"deploy/id_rsa": map[string]any{"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"},
			"notes/key.txt": map[string]any{"content": "a2V5IEFLSUFJNDRRSDhESEJFWEFNUExFCg==", "encoding": "base64"},
			"bin/blob":      map[string]any{"content": "AAECAw==", "encoding": "base64", "mode": "100755"},
		},
	}
	data, _ := snapshot.Marshal(doc)
	return data
}

// Secrets are redacted alike, found in the same order (dry-run's list),
// counted alike, also on a second save over a tip that holds the
// redacted messages, and one that adds another secret; and alike with
// redaction off, or a rule that renames the messages member itself.
func TestSaveScannedRedactsAsSaveDoes(t *testing.T) {
	rules, err := redact.New(redact.Config{Rules: map[string]string{"msgs": "messages|events"}})
	if err != nil {
		t.Fatal(err)
	}
	off, _ := redact.New(redact.Config{Disabled: true})
	for name, r := range map[string]*redact.Redactor{"built-in": nil, "a rule renaming messages": rules, "off": off} {
		t.Run(name, func(t *testing.T) {
			tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View, Redactor: r})
			for _, data := range [][]byte{leaky(), leaky(), leaky(map[string]any{"content": "sk-ant-api03-" + strings.Repeat("a1B2", 20)})} {
				e, err := tw.save(t, data, storage.SaveOptions{Session: "s"})
				if err != nil {
					t.Fatal(err)
				}
				if name == "built-in" && e.Header.Redacted < 5 {
					t.Errorf("%d secrets redacted", e.Header.Redacted)
				}
				d, err := snapshot.ScanDocument(data, snapshot.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				doc, _ := snapshot.ParseDocument(data, snapshot.Limits{})
				red := tw.stores[0].Redactor()
				_, want := red.Document(doc)
				got, err := red.Scanned(d)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("Scanned found %v (%v), Document %v", got, err, want)
				}
			}
			tw.same(t)
		})
	}
}

// Messages the tip holds as they are were stored unchanged, and are not
// redacted again by a rule added since (design §7), scanned or not.
func TestSaveScannedKeepsWhatTheTipHolds(t *testing.T) {
	off, _ := redact.New(redact.Config{Disabled: true})
	tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View, Redactor: off})
	if _, err := tw.save(t, leaky(), storage.SaveOptions{Session: "s"}); err != nil {
		t.Fatal(err)
	}
	tw.open(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
	e, err := tw.save(t, leaky(map[string]any{"content": "new AKIAI44QH8DHBEXAMPLE"}), storage.SaveOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := tw.stores[1].Read(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc[snapshot.MemberMessages].([]any)
	first, _ := snapshot.Marshal(msgs[0])
	last, _ := snapshot.Marshal(msgs[len(msgs)-1])
	if !bytes.Contains(first, []byte("AKIAI44QH8DHBEXAMPLE")) || bytes.Contains(last, []byte("AKIAI44QH8DHBEXAMPLE")) {
		t.Errorf("held message %s, new message %s: want the first kept as stored, the new one redacted", first, last)
	}
	tw.same(t)
}

// realDocuments are the documents of every real session in testdata as
// a hook or import stores them (layouts of transcripts and subagents,
// document transcripts' states, each agent's members), read back.
func realDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	s, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	docs := map[string][]byte{}
	root := filepath.Join(testdocs.Root(), "testdata")
	for _, f := range []struct{ agent, path string }{
		{"claude-code", "claude-code/short.jsonl"},
		{"claude-code", "claude-code/tool_heavy.jsonl"},
		{"claude-code", "claude-code/subagent.jsonl"},
		{"claude-code", "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"},
		{"claude-code", "live/claude-code/6770d186-a816-4df6-a9b4-d9dc16b84fa9.jsonl"},
		{"claude-code", "hostile/hostile.jsonl"},
		{"codex", "codex/rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl"},
		{"codex", "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"},
		{"codex", "codex-real/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"},
		{"codex", "codex-real/plangate-sample.jsonl"},
		{"codex", "live/codex/rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl"},
		{"copilot", "copilot/6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a/events.jsonl"},
		{"copilot", "live/copilot/9d362af6-ca39-4eea-868c-df2047196cc0/events.jsonl"},
		{"cursor", "cursor/3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f.jsonl"},
		{"gemini", "gemini/session-2026-01-16T11-01-file-ops-37b7abef.json"},
		{"gemini", "live/gemini/session-2026-11-25T09-50-ee947b54.jsonl"},
		{"opencode", "opencode/ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json"},
		{"opencode", "live/opencode/ses_de3085fdeffe73Ib9EawIKH7Xu.json"},
	} {
		a, err := agent.Lookup(f.agent, agent.Env{})
		if err != nil {
			t.Fatal(err)
		}
		session := fmt.Sprintf("real%d", len(docs))
		e, _, err := capture.Ingest{Store: s, Adapter: a}.Import(ctx, session, filepath.Join(root, f.path))
		if err != nil {
			t.Fatalf("import %s: %v", f.path, err)
		}
		doc, _, err := s.Read(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		docs[f.path] = marshal(t, doc)
	}
	return docs
}

// Every real session's document is saved alike: whole, again (the tip
// holds every message), with a message more, and with a message in the
// middle changed to hold a secret; the tally kept goes on alike.
func TestSaveScannedWritesRealDocumentsAsSaveDoes(t *testing.T) {
	tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
	i := 0
	for name, data := range realDocuments(t) {
		session := fmt.Sprintf("s%d", i)
		i++
		doc, err := snapshot.ParseDocument(data, snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := doc[snapshot.MemberMessages].([]any)
		if len(msgs) == 0 {
			t.Fatalf("%s: no messages", name)
		}
		more := slices.Concat(msgs, []any{map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "one more"}}})
		changed := slices.Clone(msgs)
		changed[len(changed)/2] = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "key AKIAI44QH8DHBEXAMPLE"}}
		for _, m := range [][]any{msgs, msgs, more, changed} {
			doc[snapshot.MemberMessages] = m
			if _, err := tw.save(t, marshal(t, doc), storage.SaveOptions{Session: session, Label: name}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		tw.appendOne(t, session, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "and another"}})
	}
	tw.same(t)
}

// The saves that do not count as a hook does (given totals, a counter of
// whole documents, none), given times, live records out of stored order,
// and bad documents: alike, and a bad document writes nothing.
func TestSaveScannedEdgesAsSaveDoes(t *testing.T) {
	doc := map[string]any{
		"agent":    "claude-code",
		"document": map[string]any{"live": []any{[]any{3, 2}, []any{0, 2}}, "stored": 5},
		"messages": []any{
			map[string]any{"type": "user", "timestamp": "2026-01-02T10:00:00Z", "message": map[string]any{"role": "user", "content": "a"}},
			map[string]any{"type": "assistant", "timestamp": "2026-01-02T10:00:01Z", "message": map[string]any{"role": "assistant", "content": "b", "usage": map[string]any{"input_tokens": 3, "output_tokens": 4}}},
			map[string]any{"type": "user", "timestamp": "2026-01-02T09:00:00Z", "message": map[string]any{"role": "user", "content": "c"}},
			map[string]any{"type": "user", "timestamp": "2026-01-02T11:00:00Z", "message": map[string]any{"role": "user", "content": "d"}},
			map[string]any{"type": "assistant", "timestamp": "2026-01-02T11:00:01Z", "message": map[string]any{"role": "assistant", "content": "e"}},
		},
	}
	out := marshal(t, doc)
	delete(doc, "document")
	plain := marshal(t, doc)
	// A slash command in the main file, an answer in a subagent's, a
	// prompt in the main file: counted by thread, the command is not
	// answered.
	var l agent.Layout
	l.Files = []agent.LayoutFile{{Name: "", Path: "/t/main.jsonl"}, {Name: "sub.jsonl", Path: "/t/sub.jsonl"}}
	l.Add(0, 1)
	l.Add(1, 1)
	l.Add(0, 1)
	threads := marshal(t, map[string]any{"agent": "claude-code", "transcript": l.JSON(), "messages": []any{
		map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "<command-name>/review</command-name>"}},
		map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}}},
		map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "next"}},
	}})
	for name, setup := range map[string]func(*gitstore.Store){
		"agent's count": func(*gitstore.Store) {},
		"whole counter": func(s *gitstore.Store) { gitstore.SetCounter(s, agent.CountTotals) },
		"no count":      func(s *gitstore.Store) { gitstore.SetCounter(s, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
			for _, s := range tw.stores {
				setup(s)
			}
			for _, o := range []storage.SaveOptions{
				{Session: "s"},
				{Session: "s", Time: time.Date(2026, 5, 5, 5, 5, 5, 0, time.UTC), Turn: 3, Message: "m"},
				{Session: "t", Totals: &snapshot.Totals{Messages: 9, ModelCalls: 2, InputTokens: 10}},
			} {
				for _, data := range [][]byte{plain, out, threads} {
					o.Source = "claude-code"
					if _, err := tw.save(t, data, o); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, bad := range []string{`{"messages": {}}`, `{"messages": [1], "events": 2}`, `{"messages": [1], "files": {"../x": {"content": ""}}}`,
				`{"messages": [1, 2`, `{"messages": [1], "messages": [2]}`, `[{"messages": [1]}]`} {
				if _, err := tw.save(t, []byte(bad), storage.SaveOptions{Session: "bad"}); err == nil {
					t.Fatalf("%s saved", bad)
				}
			}
			if _, err := tw.save(t, plain, storage.SaveOptions{Session: "../bad"}); err == nil {
				t.Fatal("a bad session name saved")
			}
			tw.same(t)
		})
	}
}

// A save into an import's batch writes the same snapshot into its pack.
func TestSaveScannedIntoBatch(t *testing.T) {
	ctx := context.Background()
	tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
	data := leaky()
	want, err := tw.save(t, data, storage.SaveOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tw.stores[1].NewBatch(ctx, gitstore.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := b.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := snapshot.ScanDocument(data, snapshot.Limits{})
	e, err := bs.SaveScanned(ctx, d, storage.SaveOptions{Session: "batch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if e.Tree != want.Tree {
		t.Errorf("the batch's tree is %s, Save's %s", e.Tree, want.Tree)
	}
	out, err := exec.Command("git", "-C", tw.dirs[1], "fsck", "--strict", "--no-dangling").CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("missing")) {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

// Edge documents are saved alike, each into a session of its own and then
// again with a message more (the next save, on a tip that holds the
// rest): empty, with empty members, one message, events alone, one
// message of 8 MiB, and one nested near the depth limit.
func TestSaveScannedEdgeDocumentsAsSaveDoes(t *testing.T) {
	deep := strings.Repeat("[", 500) + `"bottom"` + strings.Repeat("]", 500)
	huge := `{"role":"user","content":"` + strings.Repeat("x", 8<<20) + `"}`
	one := `{"role":"user","content":"hi","usage":{"input_tokens":3,"output_tokens":4}}`
	docs := map[string]string{
		"empty":          `{}`,
		"empty-members":  `{"messages":[],"events":[]}`,
		"one":            `{"messages":[` + one + `]}`,
		"events-alone":   `{"events":[{"type":"start"},{"type":"end"}]}`,
		"huge":           `{"config":{"model":"m"},"messages":[` + huge + `]}`,
		"deep":           `{"messages":[` + deep + `]}`,
		"spaced":         " \n{ \"messages\" : [ " + one + " ,\n\t" + one + " ] , \"z\" : 1 }\n",
		"messages-later": `{"z":[1,2],"events":[{"a":1}],"messages":[` + one + `]}`,
	}
	tw := newTwin(t, gitstore.Options{Counter: session.Counter{}, View: session.View})
	for name, text := range docs {
		if _, err := tw.save(t, []byte(text), storage.SaveOptions{Session: name}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, err := snapshot.ParseDocument([]byte(text), snapshot.Limits{})
		must(t, err)
		msgs, _ := doc[snapshot.MemberMessages].([]any)
		doc[snapshot.MemberMessages] = append(msgs, map[string]any{"role": "assistant", "content": "one more"})
		e, err := tw.save(t, marshal(t, doc), storage.SaveOptions{Session: name})
		if err != nil {
			t.Fatalf("%s, a message more: %v", name, err)
		}
		if e.Header.Seq != 2 || e.Header.Messages != len(msgs)+1 {
			t.Errorf("%s, a message more: snapshot #%d of %d messages", name, e.Header.Seq, e.Header.Messages)
		}
	}
	tw.same(t)
}
