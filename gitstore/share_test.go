package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// gitDaemon serves dir's repositories over git:// on 127.0.0.1 until the
// test ends. The test holds the listening socket and runs git daemon
// --inetd on each connection, as inetd would: git daemon cannot be asked
// for a free port and say which it took, and a port found free and then
// handed to it could be taken by another process in between.
func gitDaemon(t *testing.T, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		logs    bytes.Buffer // not the test's output: children would hold it open
		running = map[*exec.Cmd]bool{}
	)
	serve := func(c net.Conn) {
		f, err := c.(*net.TCPConn).File() // the socket itself, as git's stdin and stdout
		c.Close()
		if err != nil {
			mu.Lock()
			fmt.Fprintf(&logs, "connection: %v\n", err)
			mu.Unlock()
			return
		}
		defer f.Close()
		var out bytes.Buffer
		cmd := exec.Command("git", "daemon", "--inetd", "--log-destination=stderr", "--export-all",
			"--enable=receive-pack", "--base-path="+dir, dir)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = f, f, &out
		mu.Lock()
		err = cmd.Start()
		if err == nil {
			running[cmd] = true
		}
		mu.Unlock()
		if err == nil {
			err = cmd.Wait()
		}
		mu.Lock()
		delete(running, cmd)
		logs.Write(out.Bytes())
		if err != nil {
			fmt.Fprintf(&logs, "git daemon --inetd: %v\n", err)
		}
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed when the test ends
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for cmd := range running {
			_ = cmd.Process.Kill() // a connection the test left open
		}
		mu.Unlock()
		wg.Wait()
		if t.Failed() {
			t.Logf("git daemon:\n%s", logs.String())
		}
	})
	return "git://" + l.Addr().String() + "/"
}

// httpBackend serves dir's repositories over smart HTTP on 127.0.0.1 as
// hosts such as GitHub and GitLab serve them: git http-backend, git's own
// server side, run as CGI by lighttpd, a web server packaged by Debian,
// behind HTTP basic auth (user snap, password secret; the returned URL
// carries them, as a credential helper would give them to git). Every
// repository there is set to receive.fsckObjects=true, as hosts are, so
// that an object git would refuse is refused here too.
//
// The test holds the listening socket and hands it to lighttpd as systemd
// would (socket activation: the socket as descriptor 3, LISTEN_FDS and
// LISTEN_PID), for the reason gitDaemon gives. lighttpd runs in the
// foreground with a configuration of its own in a temporary directory and
// is stopped when the test ends; its error and access logs, which hold
// git http-backend's errors too, are shown if the test failed.
func httpBackend(t *testing.T, dir string) string {
	t.Helper()
	lighttpd := requireLighttpd(t)
	execPath := strings.TrimSpace(git(t, dir, "--exec-path"))
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".git") {
			git(t, filepath.Join(dir, e.Name()), "config", "receive.fsckObjects", "true")
		}
	}

	run := t.TempDir()
	must(t, os.Mkdir(filepath.Join(run, "www"), 0o755))
	must(t, os.WriteFile(filepath.Join(run, "users"), []byte("snap:secret\n"), 0o600))
	conf := filepath.Join(run, "lighttpd.conf")
	must(t, os.WriteFile(conf, []byte(lighttpdConf(t, run, dir, filepath.Join(execPath, "git-http-backend"))), 0o644))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	sock, err := l.(*net.TCPListener).File()
	l.Close() // sock still holds the socket, and lighttpd will
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer // not the test's output: CGI children would hold it open
	cmd := exec.Command("/bin/sh", "-c", `export LISTEN_PID=$$; exec "$0" "$@"`, lighttpd, "-D", "-f", conf)
	cmd.Env = append(os.Environ(), "LISTEN_FDS=1")
	cmd.ExtraFiles = []*os.File{sock} // descriptor 3
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second // a CGI child left running may hold the output open
	err = cmd.Start()
	sock.Close() // once lighttpd has gone, connections are refused rather than left waiting
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	logs := func(exit error) string {
		var b strings.Builder
		fmt.Fprintf(&b, "lighttpd ended: %v\noutput:\n%s", exit, out.String())
		for _, name := range []string{"error.log", "access.log"} {
			data, _ := os.ReadFile(filepath.Join(run, name))
			fmt.Fprintf(&b, "%s:\n%s", name, data)
		}
		return b.String()
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // lighttpd stops at once on SIGTERM
		var exit error
		select {
		case exit = <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			exit = <-done
		}
		if t.Failed() {
			t.Log(logs(exit))
		}
	})

	// The server answers, and asks who is there before anything else.
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("lighttpd does not answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("lighttpd answered a request without credentials with %s, want 401", resp.Status)
	}
	return "http://snap:secret@" + addr + "/"
}

// lighttpdConf is the configuration httpBackend gives lighttpd: the socket
// it is handed and no other, basic auth on every path against the plain
// user file run/users, and every path mapped onto git http-backend (the
// rest of the path its PATH_INFO) with root as GIT_PROJECT_ROOT. mod_auth
// sets REMOTE_USER, which http-backend takes as the pusher, so pushes are
// allowed as a host allows them to a signed-in user.
func lighttpdConf(t *testing.T, run, root, backend string) string {
	t.Helper()
	q := func(s string) string {
		if strings.ContainsAny(s, "\"\\$\n") {
			t.Fatalf("path %q cannot be written in lighttpd's configuration", s)
		}
		return `"` + s + `"`
	}
	return strings.Join([]string{
		`server.modules = ("mod_alias", "mod_setenv", "mod_auth", "mod_authn_file", "mod_cgi", "mod_accesslog")`,
		`server.systemd-socket-activation = "enable"`,
		`server.document-root = ` + q(filepath.Join(run, "www")),
		`server.upload-dirs = (` + q(run) + `)`,
		`server.errorlog = ` + q(filepath.Join(run, "error.log")),
		`accesslog.filename = ` + q(filepath.Join(run, "access.log")),
		`auth.backend = "plain"`,
		`auth.backend.plain.userfile = ` + q(filepath.Join(run, "users")),
		`auth.require = ("" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))`,
		`alias.url = ("/" => ` + q(backend+"/") + `)`,
		`cgi.assign = ("" => "")`,
		`setenv.add-environment = ("GIT_PROJECT_ROOT" => ` + q(root) + `, "GIT_HTTP_EXPORT_ALL" => "1")`,
		"",
	}, "\n")
}

// requireLighttpd finds lighttpd, which Debian installs in /usr/sbin (not
// on an ordinary user's PATH). Without it the smart-HTTP tests are
// skipped, unless $GIT_SNAP_REQUIRE_TOOLS is set (as .ci/run sets it,
// having installed it): then they fail.
func requireLighttpd(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("lighttpd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/lighttpd"); err == nil {
		return "/usr/sbin/lighttpd"
	}
	if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
		t.Fatal("lighttpd is not installed and GIT_SNAP_REQUIRE_TOOLS is set: the smart-HTTP tests serve through it (apt-get install lighttpd)")
	}
	t.Skip("lighttpd is not installed: the smart-HTTP tests serve through it (apt-get install lighttpd; set GIT_SNAP_REQUIRE_TOOLS=1 to make this a failure)")
	return ""
}

// clone makes a working repository with origin set to url.
func clone(t *testing.T, url string) (string, *Store) {
	dir, s := newRepo(t)
	git(t, dir, "remote", "add", "origin", url)
	return dir, s
}

func saveN(t *testing.T, s *Store, session string, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		if _, err := s.Save(context.Background(), conversation(i), storage.SaveOptions{Session: session, Label: fmt.Sprint("step ", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestShareThroughRealServers(t *testing.T) {
	for _, server := range []string{"git-daemon", "smart-http"} {
		t.Run(server, func(t *testing.T) {
			srv := t.TempDir()
			git(t, srv, "init", "-q", "--bare", "shared.git")
			git(t, filepath.Join(srv, "shared.git"), "config", "http.receivepack", "true")
			base := map[string]func(*testing.T, string) string{"git-daemon": gitDaemon, "smart-http": httpBackend}[server](t, srv)
			shareScenario(t, base+"shared.git", filepath.Join(srv, "shared.git"))
		})
	}
}

func shareScenario(t *testing.T, url, bare string) {
	ctx := context.Background()
	opt := RemoteOptions{}
	dirA, a := clone(t, url)
	dirB, b := clone(t, url)
	configA := git(t, dirA, "config", "--list", "--local")

	saveN(t, a, "s1", 1, 3)
	tipA, _ := a.SessionTip("s1")
	if _, err := a.SetCheckpoint(ctx, "first", tipA, "", false); err != nil {
		t.Fatal(err)
	}
	if err := a.Push(ctx, opt); err != nil {
		t.Fatal(err)
	}
	// Only sessions and checkpoints travel.
	if refs := git(t, bare, "for-each-ref", "--format=%(refname)"); refs != testShard("s1")+"\nrefs/snap-tags/s1/first" {
		t.Fatalf("the server holds:\n%s", refs)
	}
	res, err := b.Pull(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Action != PullCreated || res[0].Result != tipA {
		t.Fatalf("first pull: %+v", res)
	}
	if cp, _ := b.Checkpoints(ctx, "s1", false); len(cp) != 1 || cp[0].Target != tipA {
		t.Fatalf("checkpoint not pulled: %+v", cp)
	}

	// Both clones go on; neither side may be lost.
	saveN(t, a, "s1", 4, 5)
	if err := a.Push(ctx, opt); err != nil {
		t.Fatal(err)
	}
	doc, err := snapshot.ParseDocument([]byte(`{"messages":[{"id":"m0","role":"user","content":"message 0"},{"id":"b-only","role":"user","content":"from B"}],"config":{"model":"m2"}}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	eb, err := b.Save(ctx, doc, storage.SaveOptions{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Push(ctx, opt); err == nil {
		t.Fatal("pushing a diverged session succeeded")
	}
	res, err = b.Pull(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Action != PullMerged {
		t.Fatalf("diverged pull: %+v", res)
	}
	merged, _, err := b.Read(ctx, res[0].Result)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range merged["messages"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, ",") != "m0,b-only,m1,m2,m3,m4" {
		t.Errorf("united messages: %v", ids)
	}
	// Only B changed config since they parted: B's value, no conflict.
	if cfg := merged["config"].(map[string]any); cfg["model"] != "m2" || len(res[0].Conflicts) != 0 {
		t.Errorf("config %v, conflicts %v", cfg, res[0].Conflicts)
	}
	parents := git(t, dirB, "log", "-1", "--format=%P", "snap/s1")
	tipA, _ = a.SessionTip("s1")
	if parents != eb.ID.String()+" "+tipA.String() {
		t.Errorf("the merge's parents are %s", parents)
	}
	if err := b.Push(ctx, opt); err != nil {
		t.Fatal(err)
	}
	res, err = a.Pull(ctx, opt)
	if err != nil || len(res) != 1 || res[0].Action != PullFastForward {
		t.Fatalf("pull of the merge: %+v %v", res, err)
	}
	if res, _ = a.Pull(ctx, opt); res[0].Action != PullUpToDate {
		t.Errorf("second pull: %+v", res)
	}
	if after := git(t, dirA, "config", "--list", "--local"); after != configA {
		t.Errorf("the remote config changed:\n%s\n→\n%s", configA, after)
	}
	git(t, dirA, "fsck", "--strict", "--no-dangling")
	git(t, dirB, "fsck", "--strict", "--no-dangling")
}

func TestBundleRoundTripAndGitInterop(t *testing.T) {
	ctx := context.Background()
	dirA, a := newRepo(t)
	saveN(t, a, "s1", 1, 4)
	tip, _ := a.SessionTip("s1")
	if _, err := a.SetCheckpoint(ctx, "cp", tip, "the end", false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s1.bundle")
	f, _ := os.Create(path)
	if _, err := a.WriteBundle(ctx, f, []string{"refs/snap/s1", "refs/snap-tags/s1/cp"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out := git(t, dirA, "bundle", "verify", path); !strings.Contains(out, "is okay") {
		t.Errorf("git bundle verify: %s", out)
	}
	_, b := newRepo(t)
	data, _ := os.ReadFile(path)
	res, err := b.ImportBundle(ctx, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != PullCreated || res[0].Result != tip {
		t.Fatalf("import: %+v", res)
	}
	if res, _ = b.ImportBundle(ctx, bytes.NewReader(data)); res[0].Action != PullUpToDate {
		t.Errorf("import again: %+v", res)
	}
	// A bundle git made.
	gitBundle := filepath.Join(t.TempDir(), "git.bundle")
	saveN(t, a, "s2", 1, 2)
	git(t, dirA, "bundle", "create", "-q", gitBundle, "refs/snap/s2")
	_, c := newRepo(t)
	gb, _ := os.ReadFile(gitBundle)
	if res, err := c.ImportBundle(ctx, bytes.NewReader(gb)); err != nil || res[0].Action != PullCreated {
		t.Fatalf("git's bundle: %+v %v", res, err)
	}
	// Damaged, foreign or dependent bundles are refused; no ref moves.
	_, d := newRepo(t)
	git(t, dirA, "bundle", "create", "-q", gitBundle, "main")
	mainBundle, _ := os.ReadFile(gitBundle)
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)-30],
		"not":       []byte("hello"),
		"foreign":   mainBundle,
	} {
		if _, err := d.ImportBundle(ctx, bytes.NewReader(bad)); err == nil {
			t.Errorf("%s bundle imported", name)
		}
	}
	if s, _ := d.Sessions(ctx); len(s) != 0 {
		t.Errorf("sessions after refused bundles: %v", s)
	}
}

func TestPruneKeepsWhatItSaysAndOldIDsResolve(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "p", 1, 30)
	chain, _ := s.firstParentChain(ctx, mustTip(t, s, "p"))
	for name, i := range map[string]int{"five": 4, "twenty": 19} {
		if _, err := s.SetCheckpoint(ctx, name, chain[i].ID, "", false); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "update-ref", "refs/heads/keep-me", chain[10].ID.String())
	dry, err := s.Prune(ctx, "p", PruneOptions{KeepLast: 5, KeepCheckpoints: true, DryRun: true})
	if err != nil || len(dry.Kept) != 7 || mustTip(t, s, "p") != chain[29].ID {
		t.Fatalf("dry run: %d kept, %v", len(dry.Kept), err)
	}
	res, err := s.Prune(ctx, "p", PruneOptions{KeepLast: 5, KeepCheckpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	if kept := messageCounts(res.Kept); kept != "[5 20 26 27 28 29 30]" {
		t.Errorf("kept %v", kept)
	}
	if got := git(t, dir, "rev-list", "--count", "snap/p"); got != "7" {
		t.Errorf("chain of %s", got)
	}
	newChain, _ := s.firstParentChain(ctx, mustTip(t, s, "p"))
	for i, e := range newChain {
		if e.Header.Seq != i+1 || e.Tree != res.Kept[i].Tree {
			t.Errorf("snapshot %d: seq %d, tree %s", i, e.Header.Seq, e.Tree)
		}
	}
	if cp, _ := s.Resolve(ctx, "snap/p/twenty"); cp != newChain[1].ID {
		t.Errorf("checkpoint twenty → %s, want %s", cp, newChain[1].ID)
	}
	// An id copied before the prune, full or a prefix, before and after git gc.
	for _, phase := range []string{"before gc", "after gc"} {
		if phase == "after gc" {
			git(t, dir, "gc", "-q", "--prune=now")
		}
		for _, rev := range []string{chain[27].ID.String(), chain[27].ID.String()[:10]} {
			if got, err := s.Resolve(ctx, rev); err != nil || got != newChain[4].ID {
				t.Errorf("%s: old id %s → %s %v, want %s", phase, rev, got, err, newChain[4].ID)
			}
		}
	}
	if got := git(t, dir, "rev-parse", "refs/heads/keep-me"); got != chain[10].ID.String() {
		t.Error("prune touched a ref git-snap did not create")
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	if _, err := s.Drop(ctx, "p", false); err != nil {
		t.Fatal(err)
	}
	if refs := git(t, dir, "for-each-ref", "refs/snap", "refs/snap-tags", "refs/tags/snap"); refs != "" {
		t.Errorf("after drop: %s", refs)
	}
}

func mustTip(t *testing.T, s *Store, session string) storage.ID {
	t.Helper()
	h, err := s.SessionTip(session)
	if err != nil || h.IsZero() {
		t.Fatalf("no tip for %s: %v", session, err)
	}
	return h
}

// TestSmartHTTPRefusesAWrongPassword: the smart-HTTP server the sharing
// tests use asks for credentials and refuses wrong ones, as a host does,
// so a push or fetch that succeeds there went through basic auth.
func TestSmartHTTPRefusesAWrongPassword(t *testing.T) {
	srv := t.TempDir()
	git(t, srv, "init", "-q", "--bare", "shared.git")
	base, err := url.Parse(httpBackend(t, srv))
	must(t, err)
	refs := "http://" + base.Host + "/shared.git/info/refs?service=git-upload-pack"
	c := &http.Client{Timeout: 30 * time.Second}
	for _, tc := range []struct {
		name       string
		user, pass string
		want       int
	}{
		{"no credentials", "", "", http.StatusUnauthorized},
		{"wrong password", "snap", "wrong", http.StatusUnauthorized},
		{"unknown user", "other", "secret", http.StatusUnauthorized},
		{"right password", "snap", "secret", http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, refs, nil)
		must(t, err)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := c.Do(req)
		must(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %s, want %d\n%s", tc.name, resp.Status, tc.want, body)
			continue
		}
		if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s: WWW-Authenticate %q, want a Basic challenge", tc.name, resp.Header.Get("WWW-Authenticate"))
		}
		if tc.want == http.StatusOK && resp.Header.Get("Content-Type") != "application/x-git-upload-pack-advertisement" {
			t.Errorf("%s: Content-Type %q: git http-backend did not answer", tc.name, resp.Header.Get("Content-Type"))
		}
	}

	// git itself is refused with a wrong password, and asks no one for
	// another.
	home := t.TempDir()
	wrong := "http://snap:wrong@" + base.Host + "/shared.git"
	cmd := exec.Command("git", "ls-remote", wrong)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("git ls-remote with a wrong password succeeded:\n%s", out)
	}
	if !strings.Contains(string(out), "Authentication failed") {
		t.Errorf("git ls-remote with a wrong password: %v\n%s", err, out)
	}
}

// A session's bundle carries its checkpoints in both places: one under
// refs/tags/snap/ (written by an older git-snap) is carried and adopted
// where checkpoints are written here. One whose snapshot is off the
// session's history (the session's ref set back by hand after it was
// made) is carried too; the import gives one result for the session and
// loses neither snapshot: the checkpoint's joins the session, as a pull
// brings it.
func TestBundleOfASessionCarriesLegacyAndOffHistoryCheckpoints(t *testing.T) {
	ctx := context.Background()
	dirA, a := newRepo(t)
	saveN(t, a, "s", 1, 4)
	chain, err := a.firstParentChain(ctx, mustTip(t, a, "s"))
	if err != nil {
		t.Fatal(err)
	}
	newest, older := chain[len(chain)-1].ID, chain[1].ID
	if newest == older {
		t.Fatal("the chain is too short")
	}
	git(t, dirA, "tag", "-a", "-m", "old place", "snap/s/legacy", older.String())
	if _, err := a.SetCheckpoint(ctx, "ahead", newest, "", false); err != nil {
		t.Fatal(err)
	}
	git(t, dirA, "update-ref", "refs/snap/s", older.String()) // set back: "ahead" is off its history
	refs, err := a.BundleRefs(ctx, []string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"refs/snap-tags/s/ahead", "refs/snap/s", "refs/tags/snap/s/legacy"}
	if !slices.Equal(refs, want) {
		t.Fatalf("bundle refs %v, want %v", refs, want)
	}
	var buf bytes.Buffer
	if _, err := a.WriteBundle(ctx, &buf, refs); err != nil {
		t.Fatal(err)
	}
	dirB, b := newRepo(t)
	res, err := b.ImportBundle(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Session != "s" {
		t.Fatalf("import: %+v, want one result for s", res)
	}
	for _, id := range []storage.ID{older, newest} {
		if out := git(t, dirB, "merge-base", "--is-ancestor", id.String(), "refs/snap/s"); out != "" {
			t.Errorf("%s: %s", id, out)
		}
	}
	cps, err := b.Checkpoints(ctx, "s", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cps {
		got = append(got, c.Ref)
	}
	slices.Sort(got)
	if want := []string{"refs/snap-tags/s/ahead", "refs/snap-tags/s/legacy"}; !slices.Equal(got, want) {
		t.Errorf("checkpoints after import %v, want %v", got, want)
	}
}
