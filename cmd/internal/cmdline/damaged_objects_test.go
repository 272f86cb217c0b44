//go:build linux

package cmdline

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gitIn runs git in dir with stdin and returns its trimmed output.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// codeRepo is a new repository with one empty code commit on main, for
// the built binary to run in.
func codeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "", "init", "-q", "-b", "main")
	gitIn(t, dir, "", "commit", "-q", "--allow-empty", "-m", "code")
	return dir
}

// writeLiterally stores data as an object of type typ as it is, as git
// hash-object --literally does: git itself would refuse to make it.
func writeLiterally(t *testing.T, dir, typ string, data []byte) string {
	t.Helper()
	return gitIn(t, dir, string(data), "hash-object", "-w", "--literally", "-t", typ, "--stdin")
}

// pointRef writes ref's loose file by hand: git update-ref refuses a
// ref to a commit it cannot parse, which is what a damaged repository
// (or another tool) leaves.
func pointRef(t *testing.T, dir, ref, id string) {
	t.Helper()
	path := filepath.Join(dir, ".git", filepath.FromSlash(ref))
	must(t, os.MkdirAll(filepath.Dir(path), 0o777))
	must(t, os.WriteFile(path, []byte(id+"\n"), 0o644))
}

// gitFiles lists every file under dir/.git with its size, the log of
// git-snap's own commands (which records failures too) left out: a
// command refused must leave the rest as it was.
func gitFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, ".git")
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+info.ModTime().String()+" "+strconv.FormatInt(info.Size(), 10))
		return nil
	}))
	slices.Sort(out)
	return out
}

// leftovers are the lock and temporary files under dir/.git.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".lock") || strings.HasPrefix(d.Name(), "tmp_")) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// noCrash fails when output holds what a panic prints.
func noCrash(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{"panic", "goroutine ", "internal error", ".go:"} {
		if strings.Contains(out, s) {
			t.Errorf("%s printed %q:\n%s", what, s, out)
		}
	}
}

// TestDamagedObjectsThroughCommands: gitobj now parses commits, trees
// and tags. Objects git itself would not write (a commit without its
// tree header or with a parent that is not hex, a tree with a truncated
// id or a mode of 999999, a tag with no object header), put at a
// session's or a checkpoint's ref, are read by log, show, checkpoint
// --list, prune, export --bundle and sessions. Each either ends with a
// one-line error naming the damaged object and exit 1 or 2, writing
// nothing, or rightly does not read the damaged part (log and sessions
// read no tree; prune copies tree ids as they are); sessions lists the
// good session and then names the damaged one, exit 1, and log shows
// the session's snapshots and then names a damaged checkpoint.
func TestDamagedObjectsThroughCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	type damage struct {
		name string
		// make returns the ref to point and the object to point it at.
		make func(t *testing.T, dir, tip string) (ref, id string)
		// ok are the commands that rightly succeed: they do not read
		// the damaged part (checkpoint --list of a session with none
		// reads no commit; prune must move the session's checkpoints,
		// so a damaged one stops it).
		ok []string
	}
	header := func(dir, tip string) string { // a real snapshot's message
		msg := gitIn(t, dir, "", "log", "-1", "--format=%B", tip)
		return strings.Replace(msg, "Snap-Session: good", "Snap-Session: bad", 1) + "\n"
	}
	commit := func(t *testing.T, dir, tree, parent, msg string) string {
		return writeLiterally(t, dir, "commit", []byte("tree "+tree+"\nparent "+parent+"\nauthor t <t@e> 1700000000 +0000\ncommitter t <t@e> 1700000000 +0000\n\n"+msg))
	}
	treeWith := func(t *testing.T, dir string, entry []byte) string {
		return writeLiterally(t, dir, "tree", entry)
	}
	blobID := func(t *testing.T, dir, tip string) []byte {
		b, err := hex.DecodeString(gitIn(t, dir, "", "rev-parse", tip+":snapshot.json"))
		must(t, err)
		return b
	}
	for _, d := range []damage{
		{name: "commit without tree header", make: func(t *testing.T, dir, tip string) (string, string) {
			return "refs/snap/bad", writeLiterally(t, dir, "commit", []byte("parent "+tip+"\nauthor t <t@e> 1 +0000\ncommitter t <t@e> 1 +0000\n\n"+header(dir, tip)))
		}, ok: []string{"checkpoint"}},
		{name: "parent not hex", make: func(t *testing.T, dir, tip string) (string, string) {
			tree := gitIn(t, dir, "", "rev-parse", tip+"^{tree}")
			return "refs/snap/bad", commit(t, dir, tree, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", header(dir, tip))
		}, ok: []string{"checkpoint"}},
		{name: "tree id truncated", make: func(t *testing.T, dir, tip string) (string, string) {
			tree := treeWith(t, dir, []byte("100644 snapshot.json\x00abc"))
			return "refs/snap/bad", commit(t, dir, tree, tip, header(dir, tip))
		}, ok: []string{"log", "sessions", "prune", "checkpoint"}},
		{name: "tree mode 999999", make: func(t *testing.T, dir, tip string) (string, string) {
			tree := treeWith(t, dir, append([]byte("999999 snapshot.json\x00"), blobID(t, dir, tip)...))
			return "refs/snap/bad", commit(t, dir, tree, tip, header(dir, tip))
		}, ok: []string{"log", "sessions", "prune", "checkpoint"}},
		{name: "tag without object header", make: func(t *testing.T, dir, tip string) (string, string) {
			return "refs/snap-tags/good/bad", writeLiterally(t, dir, "tag", []byte("type commit\ntag bad\ntagger t <t@e> 1700000000 +0000\n\nm\n"))
		}, ok: []string{"sessions"}},
	} {
		t.Run(d.name, func(t *testing.T) {
			dir := codeRepo(t)
			for i := range 3 {
				doc := `{"messages":[{"id":"1","role":"user","content":"hi"}` + strings.Repeat(`,{"id":"x`+string(rune('a'+i))+`","role":"assistant","content":"yo"}`, i) + `]}`
				if code, out := runFor(t, bin, dir, doc, "save", "--session", "good"); code != 0 {
					t.Fatalf("save: %d %s", code, out)
				}
			}
			tip := gitIn(t, dir, "", "rev-parse", "refs/snap/good")
			ref, id := d.make(t, dir, tip)
			pointRef(t, dir, ref, id)
			session, target := "bad", "bad" // what show and export name
			if strings.HasPrefix(ref, "refs/snap-tags/") {
				session, target = "good", "snap/good/bad"
			}
			bundle := filepath.Join(dir, "out.bundle")
			for _, c := range []struct {
				name string
				args []string
			}{
				{"log", []string{"log", session}},
				{"show", []string{"show", target}},
				{"checkpoint", []string{"checkpoint", "--list", "--session", session}},
				{"prune", []string{"prune", session, "--keep-last", "1"}},
				{"export", []string{"export", "--bundle", bundle, target}},
				{"sessions", []string{"sessions"}},
			} {
				refsBefore := gitIn(t, dir, "", "for-each-ref")
				filesBefore := gitFiles(t, dir)
				code, out := runFor(t, bin, dir, "", c.args...)
				noCrash(t, c.name, out)
				if slices.Contains(d.ok, c.name) {
					if code != 0 {
						t.Errorf("%s: exit %d, want 0: it need not read the damaged part\n%s", c.name, code, out)
					}
					continue
				}
				switch {
				case c.name == "sessions":
					// A listing shows the sessions it can read, then names
					// the damaged one: exit 1.
					if code != 1 || !strings.Contains(out, "\ngood ") || !strings.Contains(out, "git-snap: session bad could not be read") {
						t.Errorf("%s: exit %d, want 1, the good session listed and the bad one named\n%s", c.name, code, out)
					}
				case c.name == "log" && strings.HasPrefix(ref, "refs/snap-tags/"):
					// The log shows the session's snapshots, then names
					// the checkpoint it could not read: exit 1.
					if code != 1 || !strings.Contains(out, "(snap good#3)") || !strings.Contains(out, "git-snap: checkpoint snap/good/bad could not be read") {
						t.Errorf("%s: exit %d, want 1, the snapshots shown and the checkpoint named\n%s", c.name, code, out)
					}
				default:
					if code != 1 && code != 2 {
						t.Errorf("%s: exit %d, want 1 or 2\n%s", c.name, code, out)
					}
					if lines := strings.Split(strings.TrimSpace(out), "\n"); !strings.HasPrefix(lines[0], "git-snap: ") || len(lines) > 2 {
						t.Errorf("%s: want one error line (and a hint), got:\n%s", c.name, out)
					}
				}
				if !strings.Contains(out, "malformed") && !strings.Contains(out, "not a git-snap snapshot") {
					t.Errorf("%s: the error names neither the damaged object nor what is wrong with it:\n%s", c.name, out)
				}
				if after := gitIn(t, dir, "", "for-each-ref"); after != refsBefore {
					t.Errorf("%s changed refs:\n%s\nwas\n%s", c.name, after, refsBefore)
				}
				if after := gitFiles(t, dir); !slices.Equal(after, filesBefore) {
					t.Errorf("%s wrote into .git:\n%v\nwas\n%v", c.name, after, filesBefore)
				}
				if _, err := os.Stat(bundle); err == nil {
					t.Errorf("%s left %s", c.name, bundle)
				}
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("left %v", l)
			}
			// The good session still reads whole.
			if code, out := runFor(t, bin, dir, "", "export", "good"); code != 0 || !strings.Contains(out, `"yo"`) {
				t.Errorf("export good: %d\n%s", code, out)
			}
		})
	}
}

// prunedSignatures are the author and committer lines of each commit of
// ref, oldest first, read by git.
func prunedSignatures(t *testing.T, dir, ref string) []string {
	t.Helper()
	var out []string
	for _, c := range strings.Fields(gitIn(t, dir, "", "rev-list", "--reverse", ref)) {
		var sig []string
		for _, line := range strings.Split(gitIn(t, dir, "", "cat-file", "commit", c), "\n") {
			if line == "" {
				break
			}
			if strings.HasPrefix(line, "author ") || strings.HasPrefix(line, "committer ") {
				sig = append(sig, line)
			}
		}
		out = append(out, strings.Join(sig, "\n"))
	}
	return out
}

// TestPruneKeepsSignaturesByteForByte: prune rewrites the commits after
// the first it drops with gitobj.NewCommit and the header values it
// parsed. Authors and committers with a name in UTF-8, a zone of +0530,
// -0000 (which git keeps apart from +0000), +1400 and -1230, and a time
// of 0 are each written back as git showed them before, and git fsck
// --strict finds nothing.
func TestPruneKeepsSignaturesByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	sigs := []string{
		"Zoë Ünïcode 山田 <z@e> 1700000000 +0530",
		"Plain <p@e> 1700000001 -0000",
		"Epoch <o@e> 0 +0100",
		"Far <f@e> 1700000003 -1230",
		"Name <n@e> 1700000004 +1400",
	}
	for i := range sigs {
		doc := `{"messages":[{"id":"` + string(rune('a'+i)) + `","role":"user","content":"m"}]}`
		if code, out := runFor(t, bin, dir, doc, "save", "--session", "s"); code != 0 {
			t.Fatalf("save: %d %s", code, out)
		}
	}
	// The same snapshots again, each signed as above.
	parent := ""
	for i, c := range strings.Fields(gitIn(t, dir, "", "rev-list", "--reverse", "refs/snap/s")) {
		raw := gitIn(t, dir, "", "cat-file", "commit", c)
		_, msg, _ := strings.Cut(raw, "\n\n")
		var b bytes.Buffer
		b.WriteString("tree " + gitIn(t, dir, "", "rev-parse", c+"^{tree}") + "\n")
		if parent != "" {
			b.WriteString("parent " + parent + "\n")
		}
		b.WriteString("author " + sigs[i] + "\ncommitter " + sigs[i] + "\n\n" + msg + "\n")
		parent = writeLiterally(t, dir, "commit", b.Bytes())
	}
	gitIn(t, dir, "", "update-ref", "refs/snap/s", parent)
	gitIn(t, dir, "", "fsck", "--strict", "--no-progress")
	before := prunedSignatures(t, dir, "refs/snap/s")
	// The second goes: the third, fourth and fifth are rewritten.
	if code, out := runFor(t, bin, dir, "", "prune", "s", "--keep-last", "3", "--keep-first"); code != 0 {
		t.Fatalf("prune: %d %s", code, out)
	}
	after := prunedSignatures(t, dir, "refs/snap/s")
	want := append([]string{before[0]}, before[2:]...)
	if !slices.Equal(after, want) {
		t.Errorf("signatures after prune:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(want, "\n"))
	}
	if got := gitIn(t, dir, "", "rev-list", "--count", "refs/snap/s"); got != "4" {
		t.Errorf("%s snapshots after prune, want 4", got)
	}
	gitIn(t, dir, "", "fsck", "--strict", "--no-progress")
}

// runSplit runs the binary in dir and returns its exit status, stdout
// and stderr.
func runSplit(t *testing.T, bin, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "TZ=UTC")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestListingsShowWhatTheyCanRead: one session whose newest commit is
// missing from the object store made sessions, stats and log --all fail
// for the whole repository. Each now shows the sessions it can read as
// it shows them with the damaged one dropped, then names the damaged
// one with a hint (exit 1), and writes nothing; stats of the damaged
// session alone names it rather than saying there is no such session,
// and show, export and log of it name what is missing with a hint.
func TestListingsShowWhatTheyCanRead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	for _, s := range []string{"a", "b", "c"} {
		doc := `{"messages":[{"id":"1","role":"user","content":"hi ` + s + `"},{"id":"2","role":"assistant","content":"yo","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":3}}]}`
		if code, out := runFor(t, bin, dir, doc, "save", "--session", s); code != 0 {
			t.Fatalf("save %s: %d %s", s, code, out)
		}
	}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return runSplit(t, bin, dir, args...)
	}
	listings := [][]string{{"sessions"}, {"sessions", "--json"}, {"stats"}, {"stats", "--json"}, {"log", "--all", "--oneline"}, {"log", "--all", "--json"}}
	// What each shows with b dropped is what it must show with b damaged.
	tip := gitIn(t, dir, "", "rev-parse", "refs/snap/b")
	if code, _, errOut := run("drop", "b"); code != 0 {
		t.Fatalf("drop b: %s", errOut)
	}
	want := map[string]string{}
	for _, args := range listings {
		_, out, _ := run(args...)
		want[strings.Join(args, " ")] = out
	}
	if code, _, errOut := run("undrop", "b"); code != 0 {
		t.Fatalf("undrop b: %s", errOut)
	}
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", tip[:2], tip[2:])))
	before := gitFiles(t, dir)
	for _, args := range listings {
		name := strings.Join(args, " ")
		code, out, errOut := run(args...)
		noCrash(t, name, errOut)
		if code != 1 || !strings.Contains(errOut, "git-snap: session b could not be read") || !strings.Contains(errOut, tip) || !strings.Contains(errOut, "hint: ") {
			t.Errorf("%s: exit %d, want 1 and session b and its commit named, with a hint:\n%s", name, code, errOut)
		}
		if out != want[name] || !strings.Contains(out, "a") {
			t.Errorf("%s shows\n%s\nwith b damaged, and\n%s\nwith b dropped", name, out, want[name])
		}
	}
	code, out, errOut := run("stats", "b")
	if code != 1 || out != "" || !strings.Contains(errOut, "session b could not be read") {
		t.Errorf("stats b: exit %d, want 1 and b named:\n%s%s", code, out, errOut)
	}
	// What reads the session itself says what is missing and what to do.
	for _, args := range [][]string{{"show", "b"}, {"export", "b"}, {"log", "b"}} {
		code, out, errOut := run(args...)
		if code != 1 || out != "" || !strings.Contains(errOut, tip) || !strings.Contains(errOut, "hint: ") || !strings.Contains(errOut, "git fsck") {
			t.Errorf("%s: exit %d, want 1, the missing commit named and a hint:\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	if after := gitFiles(t, dir); !slices.Equal(after, before) {
		t.Errorf("the listings wrote into .git:\n%v\nwas\n%v", after, before)
	}
}

// savedSessions is a repository holding the sessions names, each of two
// snapshots, saved by the binary.
func savedSessions(t *testing.T, bin string, names ...string) string {
	t.Helper()
	dir := codeRepo(t)
	for _, s := range names {
		for _, doc := range []string{
			`{"messages":[{"id":"1","role":"user","content":"hi ` + s + `"}]}`,
			`{"messages":[{"id":"1","role":"user","content":"hi ` + s + `"},{"id":"2","role":"assistant","content":"yo"}]}`,
		} {
			if code, out := runFor(t, bin, dir, doc, "save", "--session", s); code != 0 {
				t.Fatalf("save %s: %d %s", s, code, out)
			}
		}
	}
	return dir
}

// removeObject deletes the loose object id from dir's repository.
func removeObject(t *testing.T, dir, id string) {
	t.Helper()
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", id[:2], id[2:])))
}

// TestStatsOfOneSessionBesideDamagedOnes: stats of session a, with b
// and c damaged, showed a and then failed naming b and c, which it was
// not asked about; stats of b named c too. A session asked for is
// what stats answers for.
func TestStatsOfOneSessionBesideDamagedOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := savedSessions(t, bin, "a", "b", "c")
	_, want, _ := runSplit(t, bin, dir, "stats", "a")
	tips := map[string]string{}
	for _, s := range []string{"b", "c"} {
		tips[s] = gitIn(t, dir, "", "rev-parse", "refs/snap/"+s)
		removeObject(t, dir, tips[s])
	}
	code, out, errOut := runSplit(t, bin, dir, "stats", "a")
	if code != 0 || out != want || errOut != "" {
		t.Errorf("stats a beside damaged b and c: exit %d, want 0 and what it showed before\n%s%s", code, out, errOut)
	}
	code, out, errOut = runSplit(t, bin, dir, "stats", "b")
	if code != 1 || out != "" || !strings.Contains(errOut, "session b could not be read") || !strings.Contains(errOut, tips["b"]) ||
		strings.Contains(errOut, "session c") || strings.Contains(errOut, tips["c"]) {
		t.Errorf("stats b: exit %d, want 1 and b named, not c:\n%s%s", code, out, errOut)
	}
	code, _, errOut = runSplit(t, bin, dir, "stats", "nosuch")
	if code != 2 || !strings.Contains(errOut, `"nosuch" names no session`) || strings.Contains(errOut, "could not be read") {
		t.Errorf("stats nosuch: exit %d, want 2 and no such session:\n%s", code, errOut)
	}
}

// TestListingsWithEverySessionDamaged: every session's newest snapshot
// missing. sessions said there were none yet and to save one; each
// listing now shows nothing (--json an empty listing, valid JSON;
// --jq's answer to it), then names every session, exit 1.
func TestListingsWithEverySessionDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := savedSessions(t, bin, "a", "b")
	for _, s := range []string{"a", "b"} {
		removeObject(t, dir, gitIn(t, dir, "", "rev-parse", "refs/snap/"+s))
	}
	for _, c := range []struct {
		args []string
		want string // stdout; "json" for any valid JSON
	}{
		{[]string{"sessions"}, ""},
		{[]string{"sessions", "--json"}, "json"},
		{[]string{"sessions", "--jq", ".sessions | length"}, "0\n"},
		{[]string{"log", "--all", "--oneline"}, ""},
		{[]string{"log", "--all", "--json"}, "json"},
		{[]string{"log", "--all", "--jq", ".snapshots | length"}, "0\n"},
		{[]string{"stats", "--json"}, "json"},
		{[]string{"stats", "--jq", ".sessions"}, "0\n"},
	} {
		name := strings.Join(c.args, " ")
		code, out, errOut := runSplit(t, bin, dir, c.args...)
		noCrash(t, name, errOut)
		if code != 1 || !strings.Contains(errOut, "session a could not be read") || !strings.Contains(errOut, "session b could not be read") || !strings.Contains(errOut, "hint: ") {
			t.Errorf("%s: exit %d, want 1 and both sessions named, with a hint:\n%s", name, code, errOut)
		}
		if c.want == "json" && !json.Valid([]byte(out)) || c.want != "json" && out != c.want {
			t.Errorf("%s: stdout %q, want %q", name, out, c.want)
		}
	}
}

// TestDamagedObjectFilesGetAHint: an object that is there but does not
// read (a loose file emptied or cut short, as a full disk or a crash
// leaves it; a pack entry garbled) said "unexpected EOF" or "zlib:
// invalid header" with no hint, where a missing one says what to do.
// Each command that needs the object now fails naming it, with exit 1
// and the hint, and writes nothing; sessions and log, which read no
// blob, still read a damaged blob's session.
func TestDamagedObjectFilesGetAHint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	loose := func(dir, id string) string { return filepath.Join(dir, ".git", "objects", id[:2], id[2:]) }
	cut := func(t *testing.T, path string, keep func(int64) int64) {
		info, err := os.Stat(path)
		must(t, err)
		must(t, os.Chmod(path, 0o644))
		must(t, os.Truncate(path, keep(info.Size())))
	}
	for _, d := range []struct {
		name string
		// damage damages an object of session b and returns its id.
		damage   func(t *testing.T, dir string) string
		blobOnly bool // the damaged object is a blob, which listings do not read
	}{
		{"loose commit emptied", func(t *testing.T, dir string) string {
			id := gitIn(t, dir, "", "rev-parse", "refs/snap/b")
			cut(t, loose(dir, id), func(int64) int64 { return 0 })
			return id
		}, false},
		{"loose commit cut short", func(t *testing.T, dir string) string {
			id := gitIn(t, dir, "", "rev-parse", "refs/snap/b")
			cut(t, loose(dir, id), func(n int64) int64 { return n / 2 })
			return id
		}, false},
		{"loose blob cut short", func(t *testing.T, dir string) string {
			id := gitIn(t, dir, "", "rev-parse", "refs/snap/b:snapshot.json")
			cut(t, loose(dir, id), func(n int64) int64 { return n / 2 })
			return id
		}, true},
		{"pack entry garbled", func(t *testing.T, dir string) string {
			gitIn(t, dir, "", "repack", "-adq")
			id := gitIn(t, dir, "", "rev-parse", "refs/snap/b")
			idx, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
			must(t, err)
			var off int64 = -1
			raw, err := os.ReadFile(idx[0])
			must(t, err)
			for _, line := range strings.Split(gitIn(t, dir, string(raw), "show-index"), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[1] == id {
					off, err = strconv.ParseInt(f[0], 10, 64)
					must(t, err)
				}
			}
			if off < 0 {
				t.Fatalf("%s is not in the pack", id)
			}
			packFile := strings.TrimSuffix(idx[0], ".idx") + ".pack"
			must(t, os.Chmod(packFile, 0o644))
			data, err := os.ReadFile(packFile)
			must(t, err)
			for i := off + 2; i < off+8; i++ { // past the entry's type and size: its zlib header
				data[i] ^= 0x55
			}
			must(t, os.WriteFile(packFile, data, 0o644))
			return id
		}, false},
	} {
		t.Run(d.name, func(t *testing.T) {
			dir := savedSessions(t, bin, "a", "b")
			id := d.damage(t, dir)
			before := gitFiles(t, dir)
			for _, args := range [][]string{{"show", "b"}, {"export", "b"}, {"log", "b"}, {"sessions"}} {
				name := strings.Join(args, " ")
				code, out := runFor(t, bin, dir, "", args...)
				noCrash(t, name, out)
				if d.blobOnly && (args[0] == "log" || args[0] == "sessions") {
					if code != 0 {
						t.Errorf("%s: exit %d, want 0: it reads no blob\n%s", name, code, out)
					}
					continue
				}
				if code != 1 || !strings.Contains(out, id) || !strings.Contains(out, "damaged") || !strings.Contains(out, "hint: ") || !strings.Contains(out, "git fsck") {
					t.Errorf("%s: exit %d, want 1, %s named as damaged and a hint naming git fsck:\n%s", name, code, id, out)
				}
			}
			if after := gitFiles(t, dir); !slices.Equal(after, before) {
				t.Errorf("the commands wrote into .git:\n%v\nwas\n%v", after, before)
			}
		})
	}
}

// TestSearchShowsWhatItCanRead: a session whose newest snapshot is
// missing made search (and log --grep of any session) fail for the
// whole repository with nothing shown. Search now shows the hits of
// the sessions it can read and names the damaged one after (exit 1,
// --json still valid JSON); log --grep of another session is not
// failed by it; and once the object is back (no ref moved), the next
// search finds the session.
func TestSearchShowsWhatItCanRead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	for _, s := range []string{"a", "b"} {
		doc := `{"messages":[{"id":"1","role":"user","content":"hello ` + s + ` needle"}]}`
		if code, out := runFor(t, bin, dir, doc, "save", "--session", s); code != 0 {
			t.Fatalf("save %s: %d %s", s, code, out)
		}
	}
	tip := gitIn(t, dir, "", "rev-parse", "refs/snap/b")
	path := filepath.Join(dir, ".git", "objects", tip[:2], tip[2:])
	saved, err := os.ReadFile(path)
	must(t, err)
	removeObject(t, dir, tip)
	code, out, errOut := runSplit(t, bin, dir, "search", "needle")
	noCrash(t, "search", errOut)
	if code != 1 || !strings.Contains(out, "hello a needle") || strings.Contains(out, "hello b") ||
		!strings.Contains(errOut, "session b could not be read") || !strings.Contains(errOut, tip) || !strings.Contains(errOut, "hint: ") {
		t.Errorf("search with b damaged: exit %d, want 1, a's hit shown and b named with a hint:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runSplit(t, bin, dir, "search", "--json", "needle")
	var got struct{ Hits []struct{ Session string } }
	if code != 1 || json.Unmarshal([]byte(out), &got) != nil || len(got.Hits) != 1 || got.Hits[0].Session != "a" || !strings.Contains(errOut, "session b") {
		t.Errorf("search --json with b damaged: exit %d, want 1 and a's hit alone as JSON:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runSplit(t, bin, dir, "log", "a", "--grep", "needle", "--oneline"); code != 0 || !strings.Contains(out, "a#1") {
		t.Errorf("log a --grep with b damaged: exit %d, want 0 and a#1:\n%s%s", code, out, errOut)
	}
	must(t, os.WriteFile(path, saved, 0o444))
	if code, out, errOut := runSplit(t, bin, dir, "search", "needle"); code != 0 || !strings.Contains(out, "hello a needle") || !strings.Contains(out, "hello b needle") {
		t.Errorf("search with b's snapshot back: exit %d, want 0 and both hits:\n%s%s", code, out, errOut)
	}
}

// TestADamagedCheckpointHidesNothingElse: one checkpoint whose tag is
// missing from the object store made log of any session, log --all,
// checkpoint --list and export --bundle of any session fail. Now a log
// of another session and a bundle of it are untouched; log --all and
// checkpoint --list show what reads and then name the damaged one (exit
// 1, with a hint); a bundle of its own session is refused, naming it;
// and checkpoint --delete removes it.
func TestADamagedCheckpointHidesNothingElse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	for _, s := range []string{"a", "b"} {
		if code, out := runFor(t, bin, dir, `{"messages":[{"id":"1","role":"user","content":"hi `+s+`"}]}`, "save", "--session", s); code != 0 {
			t.Fatalf("save %s: %d %s", s, code, out)
		}
	}
	for _, cp := range [][]string{{"a", "good"}, {"b", "bad"}} {
		if code, out := runFor(t, bin, dir, "", "checkpoint", "--session", cp[0], cp[1]); code != 0 {
			t.Fatalf("checkpoint %v: %d %s", cp, code, out)
		}
	}
	tag := gitIn(t, dir, "", "rev-parse", "refs/snap-tags/b/bad")
	must(t, os.Remove(filepath.Join(dir, ".git", "objects", tag[:2], tag[2:])))
	run := func(args ...string) (int, string, string) {
		t.Helper()
		code, out, errOut := runSplit(t, bin, dir, args...)
		noCrash(t, strings.Join(args, " "), errOut)
		return code, out, errOut
	}
	named := func(errOut string) bool {
		return strings.Contains(errOut, "checkpoint snap/b/bad could not be read") && strings.Contains(errOut, "hint: ") && strings.Contains(errOut, "checkpoint --delete")
	}
	if code, out, errOut := run("log", "--oneline", "a"); code != 0 || !strings.Contains(out, "(good)") || errOut != "" {
		t.Errorf("log a: exit %d, want 0 with a's checkpoint shown:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("log", "--all", "--oneline"); code != 1 || !strings.Contains(out, "a#1") || !strings.Contains(out, "b#1") || !named(errOut) {
		t.Errorf("log --all: exit %d, want 1, both sessions shown and the damaged checkpoint named:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("checkpoint", "--list"); code != 1 || !strings.Contains(out, "snap/a/good") || strings.Contains(out, "bad") || !named(errOut) {
		t.Errorf("checkpoint --list: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut := run("checkpoint", "--list", "--json")
	var listed struct{ Checkpoints []struct{ Name string } }
	if code != 1 || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Checkpoints) != 1 || listed.Checkpoints[0].Name != "good" || !named(errOut) {
		t.Errorf("checkpoint --list --json: exit %d:\n%s%s", code, out, errOut)
	}
	bundle := filepath.Join(t.TempDir(), "a.bundle")
	if code, out, errOut := run("export", "--bundle", bundle, "a"); code != 0 || !strings.Contains(out, "2 refs") {
		t.Errorf("export --bundle a: exit %d, want 0 with a and its checkpoint:\n%s%s", code, out, errOut)
	}
	other := filepath.Join(t.TempDir(), "b.bundle")
	if code, _, errOut := run("export", "--bundle", other, "b"); code != 1 || !named(errOut) {
		t.Errorf("export --bundle b: exit %d, want 1 naming its damaged checkpoint:\n%s", code, errOut)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a bundle of b was written without its checkpoint")
	}
	if code, out, errOut := run("checkpoint", "--delete", "b/bad"); code != 0 {
		t.Fatalf("checkpoint --delete b/bad: exit %d:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("checkpoint", "--list"); code != 0 || errOut != "" || !strings.Contains(out, "snap/a/good") {
		t.Errorf("checkpoint --list after the delete: exit %d:\n%s%s", code, out, errOut)
	}
}
