package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// reviewed are the secrets found in testdata, each looked at by hand:
// file, rule, and why it is one. Anything else found there is a false
// positive (data lost for good) or a new secret to review.
var reviewed = []struct{ file, rule, why string }{
	// testdata/script/secrets.txtar plants fake secrets to check that
	// save, restore and scan redact them.
	{"script/secrets.txtar", "aws-access-key-id", "line 18: the script's check that restore shows no AWS key (its AKIA… example)"},
	{"script/secrets.txtar", "aws-access-key-id", "line 74: leaky.json's message hands over an AWS key id"},
	{"script/secrets.txtar", "github-token", "line 75: leaky.json's GH_TOKEN"},
	{"script/secrets.txtar", "private-key", "line 76: leaky.json's captured id_rsa"},
	{"script/secrets.txtar", "aws-access-key-id-base64", "line 77: leaky.json's notes/key.txt, an AWS key id in base64"},
	{"script/secrets.txtar", "aws-access-key-id", "line 80, read as a document: custom.json's key, which rules.yaml then allows"},
	{"script/secrets.txtar", "aws-access-key-id", "line 80, as text: the same key"},
	{"script/secrets.txtar", "aws-access-key-id", "line 89: rules.yaml's allow pattern names that key"},
}

// TestFalsePositivesInTestdata redacts every transcript and file the
// tests read from testdata (the real transcripts of each agent, the
// configuration files, the scripts), a record at a time as a hook call
// does and as raw text as a line that does not parse is kept, and
// checks that what it finds is exactly the reviewed list.
func TestFalsePositivesInTestdata(t *testing.T) {
	r, _ := New(Config{})
	root := filepath.Join(testdocs.Root(), "testdata")
	var got []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, f := range findingsIn(r, data) {
			got = append(got, rel+" "+f.Rule)
			t.Logf("%s %s %s %s", rel, f.Rule, f.Path, f.Preview)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, x := range reviewed {
		want = append(want, x.file+" "+x.rule)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found %d secrets in testdata:\n%s\nwant the %d reviewed:\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// findingsIn redacts a file's content: each line that is a JSON object
// as a document, the whole file when it is one, and every line as text.
func findingsIn(r *Redactor, data []byte) []Finding {
	var found []Finding
	var whole map[string]any
	if json.Unmarshal(data, &whole) == nil {
		_, f := r.Document(whole)
		found = append(found, f...)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		var doc map[string]any
		if whole == nil && json.Unmarshal([]byte(line), &doc) == nil {
			_, f := r.Document(doc)
			found = append(found, f...)
		}
		for _, x := range func() []Finding { _, f := r.String(line); return f }() {
			x.Path = fmt.Sprintf("line %d", n)
			found = append(found, x)
		}
	}
	return found
}
