package cmdline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// forge is a stub of a forge's comment API on 127.0.0.1: GitHub's issue
// comments or GitLab's merge request notes, kept in memory, with every
// request that changed one recorded.
type forge struct {
	mu       sync.Mutex
	kind     string // github or gitlab
	token    string
	user     string // whom the token posts as
	noUser   bool   // the token may not read /user (GitHub Actions')
	comments []forgeComment
	writes   []string // "POST", "PATCH 2", "PUT 2"
	nextID   int
}

// forgeComment is a comment as both forges list it: GitHub names its
// author in user.login, GitLab in author.username.
type forgeComment struct {
	ID     int         `json:"id"`
	Body   string      `json:"body"`
	User   *forgeLogin `json:"user,omitempty"`
	Author *forgeLogin `json:"author,omitempty"`
}

type forgeLogin struct {
	Login    string `json:"login,omitempty"`
	Username string `json:"username,omitempty"`
}

// comment is a comment written by user, as the forge lists it.
func (f *forge) comment(id int, user, body string) forgeComment {
	if f.kind == "github" {
		return forgeComment{ID: id, Body: body, User: &forgeLogin{Login: user}}
	}
	return forgeComment{ID: id, Body: body, Author: &forgeLogin{Username: user}}
}

func (f *forge) paths() (list, one string) {
	if f.kind == "github" {
		return "/repos/ada/app/issues/7/comments", "/repos/ada/app/issues/comments/"
	}
	return "/api/v4/projects/42/merge_requests/3/notes", "/api/v4/projects/42/merge_requests/3/notes/"
}

func (f *forge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	auth := r.Header.Get("Authorization") == "Bearer "+f.token
	if f.kind == "gitlab" {
		auth = r.Header.Get("PRIVATE-TOKEN") == f.token
	}
	if !auth {
		http.Error(w, "bad credentials", http.StatusUnauthorized)
		return
	}
	list, one := f.paths()
	if r.Method == http.MethodGet && (r.URL.Path == "/user" || r.URL.Path == "/api/v4/user") {
		if f.noUser {
			http.Error(w, `{"message":"Resource not accessible by integration"}`, http.StatusForbidden)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"login": f.user, "username": f.user, "id": 7})
		return
	}
	var body struct {
		Body *string `json:"body"`
	}
	if r.Method != http.MethodGet {
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &body); err != nil || body.Body == nil {
			http.Error(w, "a JSON object with a body", http.StatusBadRequest)
			return
		}
	}
	update := map[string]string{"github": http.MethodPatch, "gitlab": http.MethodPut}[f.kind]
	switch {
	case r.URL.Path == list && r.Method == http.MethodGet:
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		out := []forgeComment{}
		if page <= 1 {
			out = append(out, f.comments...)
		}
		_ = json.NewEncoder(w).Encode(out)
	case r.URL.Path == list && r.Method == http.MethodPost:
		f.nextID++
		f.comments = append(f.comments, f.comment(f.nextID, f.user, *body.Body))
		f.writes = append(f.writes, "POST")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(f.comments[len(f.comments)-1])
	case strings.HasPrefix(r.URL.Path, one) && r.Method == update:
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, one))
		for i := range f.comments {
			if f.comments[i].ID == id {
				f.comments[i].Body = *body.Body
				f.writes = append(f.writes, fmt.Sprintf("%s %d", r.Method, id))
				_ = json.NewEncoder(w).Encode(f.comments[i])
				return
			}
		}
		http.NotFound(w, r)
	default:
		http.Error(w, "not this stub's", http.StatusNotFound)
	}
}

// TestCIScriptPostsOneCommentAndUpdatesIt runs contrib/ci's script as CI
// would, end to end: a developer's clone pushes a branch and its
// sessions to a bare remote, CI clones it and runs the script against a
// stub of GitHub's (then GitLab's) API. The first run posts exactly one
// comment (at most 65,536 characters, Markdown that parses whole), the
// next, after another push, updates that comment and adds none; a run
// with nothing to say posts nothing. A comment someone else wrote with
// the marker pasted in is never updated: only one written by the
// token's user (the forge's /user, or GitHub Actions' bot). The HTML of
// each session is written for an artifact.
func TestCIScriptPostsOneCommentAndUpdatesIt(t *testing.T) {
	for _, tool := range []string{"sh", "curl", "jq", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	bin := buildBinary(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "contrib", "ci", "git-snap-pr-comment.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"github", "gitlab", "github-actions"} {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".config"), "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
				"GITHUB_ACTIONS=", "GITLAB_CI=", "GIT_SNAP_SESSION=")
			run := func(dir string, extra []string, name string, args ...string) string {
				t.Helper()
				cmd := exec.Command(name, args...)
				cmd.Dir, cmd.Env = dir, append(env, extra...)
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errOut.String())
				}
				return out.String()
			}
			origin, dev, ci := filepath.Join(root, "origin.git"), filepath.Join(root, "dev"), filepath.Join(root, "ci")
			run(root, nil, "git", "init", "-q", "--bare", "-b", "main", origin)
			run(root, nil, "git", "clone", "-q", origin, dev)
			run(dev, nil, "git", "commit", "-q", "--allow-empty", "-m", "base")
			run(dev, nil, "git", "push", "-q", "origin", "main")
			run(dev, nil, "git", "checkout", "-q", "-b", "feature")
			session := func(name, prompt string) {
				file := filepath.Join(dev, "..", name+".json")
				doc := fmt.Sprintf(`{"messages": [{"role": "user", "content": %q},
					{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "go test ./..."}}]},
					{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": true, "content": "FAIL %s"}]}]}`, prompt, name)
				if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				run(dev, nil, "git-snap", "save", "-s", name, file)
			}
			commit := func(msg string) {
				if err := os.WriteFile(filepath.Join(dev, strings.ReplaceAll(msg, " ", "-")+".txt"), []byte(msg+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				run(dev, nil, "git", "add", ".")
				run(dev, nil, "git", "commit", "-q", "-m", msg)
			}
			commit("fix the login")
			session("login", "fix the login <script>x</script> cc @alice @acme/security")
			run(dev, nil, "git", "push", "-q", "origin", "feature")
			run(dev, nil, "git-snap", "push", "origin")
			run(root, nil, "git", "clone", "-q", "-b", "feature", origin, ci)

			// GitHub Actions' token may not read /user: it posts as the
			// Actions app, github-actions[bot].
			f := &forge{kind: strings.TrimSuffix(kind, "-actions"), token: "t0ken", user: "ci-bot"}
			if kind == "github-actions" {
				f.noUser, f.user = true, "github-actions[bot]"
			}
			const marker = "<!-- git-snap pr: this comment is updated on every push -->"
			f.comments = []forgeComment{
				f.comment(1, "reviewer", "LGTM"),                 // a reviewer's, left alone
				f.comment(2, "mallory", "pwned\n\n"+marker+"\n"), // an outsider's with the marker, left alone too
			}
			f.nextID = 2
			srv := httptest.NewServer(f)
			defer srv.Close()
			html := filepath.Join(root, "html")
			vars := []string{"GIT_SNAP_FORGE=" + f.kind, "GIT_SNAP_BASE=origin/main", "GIT_SNAP_HTML_DIR=" + html}
			if f.kind == "github" {
				vars = append(vars, "GITHUB_API_URL="+srv.URL, "GITHUB_REPOSITORY=ada/app", "GIT_SNAP_PR=7", "GITHUB_TOKEN=t0ken")
			} else {
				vars = append(vars, "CI_API_V4_URL="+srv.URL+"/api/v4", "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=3", "GIT_SNAP_GITLAB_TOKEN=t0ken")
			}
			if kind == "github-actions" {
				vars = append(vars, "GITHUB_ACTIONS=true")
			}
			ours := func() forgeComment {
				t.Helper()
				f.mu.Lock()
				defer f.mu.Unlock()
				if len(f.comments) != 3 || f.comments[0].Body != "LGTM" || !strings.HasPrefix(f.comments[1].Body, "pwned") {
					t.Fatalf("comments on the stub: %+v, want the reviewer's, the outsider's and one of ours", f.comments)
				}
				return f.comments[2]
			}

			out := run(ci, vars, "sh", script)
			if !strings.Contains(out, "posted a comment") {
				t.Errorf("first run: %s", out)
			}
			c := ours()
			checkComment(t, c.Body, []string{"### login", "fix the login &lt;script>x&lt;/script> cc @\u200dalice @\u200dacme/security"})
			if data, err := os.ReadFile(filepath.Join(html, "login.html")); err != nil || !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) {
				t.Errorf("the HTML export for the artifact: %v, %.40q", err, data)
			}

			// Another push with another session: the same comment, updated.
			commit("fix the logout")
			session("logout", "and the logout")
			run(dev, nil, "git", "push", "-q", "origin", "feature")
			run(dev, nil, "git-snap", "push", "origin")
			run(ci, nil, "git", "pull", "-q", "--ff-only")
			out = run(ci, vars, "sh", script)
			if !strings.Contains(out, fmt.Sprintf("updated comment %d", c.ID)) {
				t.Errorf("second run: %s", out)
			}
			checkComment(t, ours().Body, []string{"### login", "### logout"})

			// Nothing to say: a range of commits no session is linked to.
			out = run(ci, append(vars, "GIT_SNAP_BASE=HEAD~1", "GIT_SNAP_HEAD=HEAD~1"), "sh", script)
			if !strings.Contains(out, "nothing to post") {
				t.Errorf("a run with nothing to say: %s", out)
			}
			want := []string{"POST", fmt.Sprintf("%s %d", map[string]string{"github": "PATCH", "gitlab": "PUT"}[f.kind], c.ID)}
			if strings.Join(f.writes, ",") != strings.Join(want, ",") {
				t.Errorf("writes to the forge: %q, want %q", f.writes, want)
			}
		})
	}
}

// checkComment checks a posted comment: within GitHub's limit, holding
// what it should, and Markdown that a paragraph after still ends as one
// (no fence left open).
func checkComment(t *testing.T, body string, want []string) {
	t.Helper()
	if len(body) > 65536 || len(body) == 0 {
		t.Errorf("a comment of %d bytes", len(body))
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("the comment has no %q:\n%s", w, body)
		}
	}
	src := []byte(body + "\n\nthe-end\n")
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	if last := root.LastChild(); last.Kind() != ast.KindParagraph || string(last.Lines().Value(src)) != "the-end" {
		t.Errorf("the comment leaves a block open")
	}
}
