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
	comments []forgeComment
	writes   []string // "POST", "PATCH 2", "PUT 2"
	nextID   int
}

type forgeComment struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
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
		f.comments = append(f.comments, forgeComment{f.nextID, *body.Body})
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
// with nothing to say posts nothing. The HTML of each session is written
// for an artifact.
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
	for _, kind := range []string{"github", "gitlab"} {
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
			session("login", "fix the login <script>x</script>")
			run(dev, nil, "git", "push", "-q", "origin", "feature")
			run(dev, nil, "git-snap", "push", "origin")
			run(root, nil, "git", "clone", "-q", "-b", "feature", origin, ci)

			f := &forge{kind: kind, token: "t0ken"}
			f.comments = []forgeComment{{ID: 1, Body: "LGTM"}} // a reviewer's, left alone
			f.nextID = 1
			srv := httptest.NewServer(f)
			defer srv.Close()
			html := filepath.Join(root, "html")
			vars := []string{"GIT_SNAP_FORGE=" + kind, "GIT_SNAP_BASE=origin/main", "GIT_SNAP_HTML_DIR=" + html}
			if kind == "github" {
				vars = append(vars, "GITHUB_API_URL="+srv.URL, "GITHUB_REPOSITORY=ada/app", "GIT_SNAP_PR=7", "GITHUB_TOKEN=t0ken")
			} else {
				vars = append(vars, "CI_API_V4_URL="+srv.URL+"/api/v4", "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=3", "GIT_SNAP_GITLAB_TOKEN=t0ken")
			}
			ours := func() forgeComment {
				t.Helper()
				f.mu.Lock()
				defer f.mu.Unlock()
				if len(f.comments) != 2 || f.comments[0].Body != "LGTM" {
					t.Fatalf("comments on the stub: %+v, want the reviewer's and one of ours", f.comments)
				}
				return f.comments[1]
			}

			out := run(ci, vars, "sh", script)
			if !strings.Contains(out, "posted a comment") {
				t.Errorf("first run: %s", out)
			}
			c := ours()
			checkComment(t, c.Body, []string{"### login", "fix the login &lt;script>x&lt;/script>"})
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
			want := []string{"POST", fmt.Sprintf("%s %d", map[string]string{"github": "PATCH", "gitlab": "PUT"}[kind], c.ID)}
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
