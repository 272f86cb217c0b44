package viewer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/refwatch"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// following runs srv.Follow on a watch of store's session and remote
// refs, as git snap view does, until ctx ends; the channel is closed
// once Follow returned and the watch ended.
func following(ctx context.Context, t *testing.T, srv *Server, store interface {
	Paths() gitstore.Paths
	SessionRef(string) string
}) <-chan struct{} {
	t.Helper()
	w, err := refwatch.Start(ctx, store.Paths().CommonDir, strings.TrimSuffix(store.SessionRef(""), "/"), "refs/remotes")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		srv.Follow(ctx, w.Moved())
	}()
	return done
}

// A viewer that follows the refs (refwatch, as git snap view runs it)
// reads the session a hook call moved before any page asks: the sessions
// page after each call reads no commit, no tree and no record, and
// shows what a new viewer shows.
func TestFollowReadsAMovedSessionBeforeAsked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := transcriptLines(t, longTranscript)
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000301")
	h.call(t, false, lines[:40]...)
	srv, store := viewerOn(t, h.dir)
	done := following(ctx, t, srv, store)
	defer func() { cancel(); <-done }()
	ref := store.SessionRef(h.id)
	next := 40
	for call := range 4 {
		h.call(t, false, lines[next:next+5]...)
		next += 5
		tip, err := store.SessionTip(h.id)
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if sum := srv.sums.get(ref, tip); sum != nil && sum.read {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hook call %d: the viewer had not read the moved session after 10 s", call+2)
			}
		}
		before := [...]int64{store.entries.Load(), store.firsts.Load(), store.rests.Load(), store.messages.Load()}
		got := sameAsFresh(t, srv, h.dir, "a followed hook call")[h.id]
		after := [...]int64{store.entries.Load(), store.firsts.Load(), store.rests.Load(), store.messages.Load()}
		if before != after {
			t.Errorf("hook call %d: the page read %v commits, first records, snapshot.json and records, want none", call+2,
				[4]int64{after[0] - before[0], after[1] - before[1], after[2] - before[2], after[3] - before[3]})
		}
		if got.Tip != tip.String() {
			t.Fatalf("hook call %d: the page shows tip %s, the ref is at %s", call+2, got.Tip, tip)
		}
	}
}

// A running viewer forgot no session's summary: one dropped (git
// update-ref -d, as git snap drop moves it away) stayed in memory for as
// long as the viewer ran. After a page, only sessions there are kept.
func TestSummariesOfGoneSessionsAreForgotten(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	store, err := openRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := store.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi " + name}}}, storage.SaveOptions{Session: name}); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := New(store, Options{Addr: "127.0.0.1:7414"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"b", "c"} {
		if out, err := exec.Command("git", "-C", dir, "update-ref", "-d", store.SessionRef(gone)).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if err := srv.Warm(ctx); err != nil {
			t.Fatal(err)
		}
		srv.sums.mu.Lock()
		_, kept := srv.sums.byTip[store.SessionRef(gone)]
		n := len(srv.sums.byTip)
		srv.sums.mu.Unlock()
		if kept {
			t.Errorf("session %s was deleted: its summary is still kept (%d kept)", gone, n)
		}
	}
}

// A viewer run from a linked worktree (its .git a file naming a git dir
// apart from the common dir, where refs live) with a refs.prefix two
// folders below refs, neither folder there when the viewer starts:
// the first session saved, from another process's handle, is read
// before any page asks, and so is its next snapshot.
func TestFollowFromALinkedWorktreeWithANestedPrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := t.TempDir()
	main, linked := filepath.Join(root, "main"), filepath.Join(root, "linked")
	for _, args := range [][]string{{"init", "-q", "-b", "main", main}, {"-C", main, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "--allow-empty", "-m", "code"},
		{"-C", main, "worktree", "add", "-q", "-b", "side", linked}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	opts := gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity(), RefPrefix: "refs/ai/snap/"}
	open := func() *gitstore.Store {
		st, err := gitstore.Open(ctx, linked, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	store, writer := open(), open()
	if common := store.Paths().CommonDir; common != filepath.Join(main, ".git") {
		t.Fatalf("common dir %s, want %s", common, filepath.Join(main, ".git"))
	}
	srv, err := New(store, Options{Addr: "127.0.0.1:7414"})
	if err != nil {
		t.Fatal(err)
	}
	done := following(ctx, t, srv, store)
	defer func() { cancel(); <-done }()
	msgs := []any{}
	for i := range 2 {
		msgs = append(msgs, map[string]any{"id": fmt.Sprint(i), "role": "user", "content": fmt.Sprint("hi ", i)})
		if _, err := writer.Save(ctx, map[string]any{"messages": msgs}, storage.SaveOptions{Session: "s"}); err != nil {
			t.Fatal(err)
		}
		tip, err := writer.SessionTip("s")
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if sum := srv.sums.get(store.SessionRef("s"), tip); sum != nil && sum.read {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("save %d: the viewer had not read the session after 10 s", i+1)
			}
		}
	}
}

// Hook calls, a drop and an undrop, git pack-refs and git gc while two
// clients ask for the sessions page over and over and the viewer
// follows the refs (run with -race): no page fails, and after them the
// page shows what a new viewer shows. Ending the context ends Follow
// and the watch.
func TestFollowWhilePagesAreAsked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := transcriptLines(t, longTranscript)
	h := newHookedSession(t, "ca7e0000-0000-4000-8000-000000000302")
	h.call(t, false, lines[:20]...)
	srv, store := viewerOn(t, h.dir)
	followed := following(ctx, t, srv, store)
	stop := make(chan struct{})
	var clients sync.WaitGroup
	var stopOnce sync.Once
	stopClients := func() { stopOnce.Do(func() { close(stop) }); clients.Wait() }
	defer stopClients() // on a failure too: no client goes on after the test
	for range 2 {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rec := httptest.NewRecorder()
				req := httptest.NewRequest("GET", "/?sort=tokens", nil)
				req.Host = "127.0.0.1:7414"
				srv.ServeHTTP(rec, req)
				if rec.Code != 200 {
					t.Errorf("sessions page: %d\n%s", rec.Code, rec.Body)
					return
				}
			}
		}()
	}
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", h.dir}, args...)...).CombinedOutput(); err != nil {
			t.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	next := 20
	for call := range 6 {
		h.call(t, false, lines[next:next+3]...)
		next += 3
		switch call {
		case 1:
			if _, err := store.Drop(ctx, h.id, false); err != nil {
				t.Fatal(err)
			}
			sameAsFresh(t, srv, h.dir, "after a drop")
			if _, err := store.Undrop(ctx, h.id); err != nil {
				t.Fatal(err)
			}
			sameAsFresh(t, srv, h.dir, "after an undrop")
		case 3:
			git("pack-refs", "--all")
		case 4:
			git("gc", "-q")
		}
	}
	stopClients()
	sameAsFresh(t, srv, h.dir, "after hook calls, a drop, an undrop, pack-refs and gc")
	cancel()
	select {
	case <-followed:
	case <-time.After(10 * time.Second):
		t.Fatal("Follow went on after its context ended")
	}
}

// A session whose newest commit is missing was left off the sessions
// page as if it were no session. The page lists the others and names it
// above them, with what to do, and a warm-up past it does not fail.
func TestSessionsPageNamesADamagedSession(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	store, err := openRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, name := range []string{"alpha", "beta"} {
		if _, err := store.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi " + name}}}, storage.SaveOptions{Session: name}); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := store.SessionTip("beta")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", tip.String()[:2], tip.String()[2:])); err != nil {
		t.Fatal(err)
	}
	srv, err := New(store, Options{Addr: "127.0.0.1:7414"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Warm(ctx); err != nil {
		t.Fatalf("warm-up past a damaged session: %v", err)
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = "127.0.0.1:7414"
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, "/session/alpha") || strings.Contains(body, "/session/beta") {
		t.Fatalf("status %d; want alpha listed and beta not:\n%.2000s", w.Code, body)
	}
	if !strings.Contains(body, `id="damaged"`) || !strings.Contains(body, "<code>refs/snap/beta</code>") || !strings.Contains(body, "git fsck --full") {
		t.Errorf("the damaged session is not named with what to do:\n%.3000s", body)
	}
}
