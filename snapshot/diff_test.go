package snapshot_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

func doc(t *testing.T, js string) map[string]any {
	t.Helper()
	d, err := snapshot.ParseDocument([]byte(js), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSplitJoinIsLossless(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		d := testdocs.Random(r)
		p, err := snapshot.Split(d)
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if !snapshot.Equal(p.Join(), d) {
			t.Fatalf("doc %d: Join(Split(doc)) differs", i)
		}
	}
}

func TestSplitRejectsBadMembers(t *testing.T) {
	for js, want := range map[string]string{
		`{"messages":"hi"}`:                                    "messages must be an array",
		`{"events":{}}`:                                        "events must be an array",
		`{"files":[]}`:                                         "files must be an object",
		`{"files":{"a":"text"}}`:                               "must be an object with \"content\"",
		`{"files":{"a":{"content":1}}}`:                        "needs \"content\" as a string",
		`{"files":{"../x":{"content":""}}}`:                    "must be clean",
		`{"files":{"/etc/passwd":{"content":""}}}`:             "must be relative",
		`{"files":{".git/hooks/pre-commit":{"content":""}}}`:   ".git",
		`{"files":{"a/.GIT/config":{"content":""}}}`:           ".git",
		`{"files":{"a/.git. /x":{"content":""}}}`:              ".git",
		`{"files":{"a\\b":{"content":""}}}`:                    "forward slashes",
		`{"files":{"C:x":{"content":""}}}`:                     "relative",
		`{"files":{"a":{"content":""},"a/b":{"content":""}}}`:  "cannot also be a directory",
		`{"files":{"a":{"content":"","mode":"100600"}}}`:       "mode must be",
		`{"files":{"a":{"content":"!!","encoding":"base64"}}}`: "base64",
		`{"files":{"a":{"content":"","encoding":"hex"}}}`:      "only encoding",
	} {
		_, err := snapshot.Split(doc(t, js))
		var ie *snapshot.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("Split(%s) = %v, want an InputError saying %q", js, err, want)
		}
	}
}

func TestCompareMatchesMessagesByID(t *testing.T) {
	a := doc(t, `{"config":{"t":0.5,"keep":1},"messages":[
		{"id":"1","role":"user","content":"hi"},
		{"id":"2","role":"assistant","content":"hello","usage":{"input_tokens":10,"output_tokens":5}},
		{"id":"3","role":"user","content":"bye"}]}`)
	b := doc(t, `{"config":{"t":0.7,"keep":1,"new":true},"messages":[
		{"id":"2","role":"assistant","content":"hello!","usage":{"input_tokens":10,"output_tokens":6}},
		{"id":"3","role":"user","content":"bye"},
		{"id":"4","role":"assistant","content":"ciao","usage":{"input_tokens":20,"output_tokens":3}}]}`)
	d, err := snapshot.Compare(a, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Messages {
		got = append(got, c.Op+":"+c.Key)
	}
	if want := "changed:2 added:4 removed:1"; strings.Join(got, " ") != want {
		t.Errorf("messages = %v, want %s", got, want)
	}
	var paths []string
	for _, m := range d.Members {
		paths = append(paths, m.Op+":"+m.Path)
	}
	if want := "added:$.config.new changed:$.config.t"; strings.Join(paths, " ") != want {
		t.Errorf("members = %v, want %s", paths, want)
	}
	if d.Tokens.Input != 20 || d.Tokens.Output != 4 || d.Tokens.Estimated {
		t.Errorf("tokens = %+v, want +20 input, +4 output, not estimated", d.Tokens)
	}
}

func TestCompareByPositionAndEstimates(t *testing.T) {
	a := doc(t, `{"messages":[{"role":"user","content":"a"}]}`)
	b := doc(t, `{"messages":[{"role":"user","content":"b"},{"role":"assistant","content":"twelve chars"}]}`)
	d, _ := snapshot.Compare(a, b, nil)
	if len(d.Messages) != 2 || d.Messages[0].Op != snapshot.OpChanged || d.Messages[1].Op != snapshot.OpAdded {
		t.Fatalf("messages = %+v", d.Messages)
	}
	if !d.Tokens.Estimated || d.Tokens.Output != 3 {
		t.Errorf("tokens = %+v, want an estimate of 3 output tokens", d.Tokens)
	}
}

func TestCompareFiles(t *testing.T) {
	a := doc(t, `{"files":{"a.txt":{"content":"one\ntwo\nthree\n"},"gone.txt":{"content":"x"},"bin":{"content":"AAE=","encoding":"base64"}}}`)
	b := doc(t, `{"files":{"a.txt":{"content":"one\n2\nthree\n"},"new.sh":{"content":"echo\n","mode":"100755"},"bin":{"content":"AAI=","encoding":"base64"}}}`)
	d, _ := snapshot.Compare(a, b, nil)
	var got []string
	for _, f := range d.Files {
		got = append(got, fmt.Sprintf("%s:%s:+%d-%d:bin=%v", f.Op, f.Path, f.Added, f.Removed, f.Binary))
	}
	want := "changed:a.txt:+1-1:bin=false changed:bin:+0-0:bin=true removed:gone.txt:+0-1:bin=false added:new.sh:+1-0:bin=false"
	if strings.Join(got, " ") != want {
		t.Errorf("files =\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	if !strings.Contains(d.Files[0].Patch, "-two\n+2\n") {
		t.Errorf("patch:\n%s", d.Files[0].Patch)
	}
	if len(d.Members) != 0 {
		t.Errorf("file metadata reported as member changes: %+v", d.Members)
	}
}

// A JSON Patch made from A to B turns A into B, for generated pairs,
// including documents that grow by appending (one "add" per appended
// element).
func TestPatchTurnsAIntoB(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		a, b := testdocs.Random(r), testdocs.Random(r)
		if i%3 == 0 { // b extends a, as a growing conversation does
			b = map[string]any{}
			for k, v := range a {
				b[k] = v
			}
			msgs, _ := a["messages"].([]any)
			b["messages"] = append(append([]any{}, msgs...), map[string]any{"id": "new", "role": "user"})
		}
		ops := snapshot.MakePatch(a, b)
		got, err := snapshot.ApplyPatch(a, ops)
		if err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		if !snapshot.Equal(got, b) {
			t.Fatalf("pair %d: patch does not turn A into B", i)
		}
		if i%3 == 0 && (len(ops) != 1 || ops[0].Op != "add" || ops[0].Path != "/messages/-") && a["messages"] != nil {
			t.Fatalf("pair %d: appending one message gave %+v", i, ops)
		}
	}
}

func TestPatchPointerEscapes(t *testing.T) {
	a := map[string]any{"a/b": map[string]any{"~x": snapshot.Number("1")}}
	b := map[string]any{"a/b": map[string]any{"~x": snapshot.Number("2")}}
	ops := snapshot.MakePatch(a, b)
	if len(ops) != 1 || ops[0].Path != "/a~1b/~0x" || ops[0].Op != "replace" {
		t.Errorf("ops = %+v", ops)
	}
}

// UnifiedDiff's edits reconstruct both sides, and are as short as the
// longest common subsequence allows.
func TestUnifiedDiffIsMinimalAndComplete(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 500 {
		a, b := randLines(r), randLines(r)
		patch := snapshot.UnifiedDiff("a", "b", a, b)
		if a == b {
			if patch != "" {
				t.Fatalf("equal texts gave a patch")
			}
			continue
		}
		got, err := applyUnified(a, patch)
		if err != nil || got != b {
			t.Fatalf("case %d: applying the patch gave %q (%v), want %q\n%s", i, got, err, b, patch)
		}
		changes := 0
		for _, l := range strings.Split(patch, "\n")[2:] {
			if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
				changes++
			}
		}
		la, lb := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
		if want := len(nonEmpty(la)) + len(nonEmpty(lb)) - 2*lcs(nonEmpty(la), nonEmpty(lb)); changes != want {
			t.Fatalf("case %d: %d changed lines, minimal is %d\n%s", i, changes, want, patch)
		}
	}
}

func randLines(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		fmt.Fprintf(&b, "line %d\n", r.IntN(5))
	}
	return b.String()
}

func nonEmpty(s []string) []string {
	if len(s) > 0 && s[len(s)-1] == "" {
		return s[:len(s)-1]
	}
	return s
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// applyUnified applies a unified diff (as UnifiedDiff writes it) to a.
func applyUnified(a, patch string) (string, error) {
	src := nonEmpty(strings.SplitAfter(a, "\n"))
	var out []string
	pos := 0
	lines := strings.SplitAfter(patch, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "@@") {
			var sa, na int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d ", &sa, &na); err != nil {
				na = 1 // git leaves a count of one out
				if _, err := fmt.Sscanf(l, "@@ -%d ", &sa); err != nil {
					return "", fmt.Errorf("hunk header %q: %w", l, err)
				}
			}
			start := sa - 1
			if na == 0 {
				start = sa
			}
			out = append(out, src[pos:start]...)
			pos = start
			continue
		}
		switch l[0] {
		case ' ':
			out = append(out, src[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}
