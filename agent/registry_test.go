package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// TestEveryAgentDeclaresItself lists what each adapter declares: the
// help, completion, man pages and docs are made from it, so a new agent
// that leaves a field empty fails here rather than in a stale list.
func TestEveryAgentDeclaresItself(t *testing.T) {
	infos := Agents()
	if len(infos) < 6 {
		t.Fatalf("%d agents registered, want at least the six known", len(infos))
	}
	for _, in := range infos {
		t.Logf("%-12s %-20s %s", in.Name, in.Title, in.Settings)
		a, err := Lookup(in.Name, Env{Home: t.TempDir()})
		switch {
		case err != nil:
			t.Errorf("%s: %v", in.Name, err)
		case a.Name() != in.Name:
			t.Errorf("registered as %q, the adapter says %q", in.Name, a.Name())
		case in.Title == "" || in.Settings == "":
			t.Errorf("%s: Title %q, Settings %q: both are shown to users", in.Name, in.Title, in.Settings)
		case len(a.Events()) == 0:
			t.Errorf("%s installs itself for no event", in.Name)
		}
	}
}

// TestNoAdapterReadsAnothersRecords: ViewMessage asks the adapters in
// name order, and that order must decide nothing. Every record of every
// real transcript in testdata is read by at most one adapter, or by
// several that read it alike.
func TestNoAdapterReadsAnothersRecords(t *testing.T) {
	records := testdataRecords(t)
	if len(records) < 100 {
		t.Fatalf("%d records found in testdata; the walk is broken", len(records))
	}
	for _, r := range records {
		var first *snapshot.Message
		var by []string
		for _, a := range Adapters(Env{}) {
			m, ok := a.View(r.rec)
			if !ok {
				continue
			}
			by = append(by, a.Name())
			if first == nil {
				first = &m
			} else if !reflect.DeepEqual(*first, m) {
				t.Errorf("%s: a record read differently by %s", r.file, strings.Join(by, " and "))
				break
			}
		}
	}
}

type fileRecord struct {
	file string
	rec  any
}

// testdataRecords reads every record of the agents' real transcripts:
// the lines of JSONL files and the messages of JSON documents.
func testdataRecords(t *testing.T) []fileRecord {
	t.Helper()
	var out []fileRecord
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "hostile") || strings.Contains(path, "script") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl":
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					out = append(out, fileRecord{path, Element(line, snapshot.Limits{})})
				}
			}
		case ".json":
			doc, err := snapshot.Parse(data, snapshot.Limits{})
			if err != nil {
				return err
			}
			m, _ := doc.(map[string]any)
			msgs, _ := m["messages"].([]any)
			for _, rec := range msgs {
				out = append(out, fileRecord{path, rec})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
