package agentdb

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// A copy of a kilo.db Kilo 7.7.7 wrote (testdata/kilo/SOURCE.md), and
// what kilo export printed of its session.
const (
	kiloDB     = "../testdata/kilo/kilo.db"
	kiloExport = "../testdata/kilo/ses_ddb934ac0ffea44ANynVhkURW8.json"
)

// TestExportIsWhatKiloExportPrints: the document read from the database
// is JSON-equal to the agent's own export of the session, and reading
// changes nothing in the database.
func TestExportIsWhatKiloExportPrints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kilo.db")
	data, err := os.ReadFile(kiloDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := db.Sessions(ctx)
	if err != nil || len(ids) != 1 || ids[0] != "ses_ddb934ac0ffea44ANynVhkURW8" {
		t.Fatalf("sessions %v, %v", ids, err)
	}
	doc, err := db.Export(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(kiloExport)
	if err != nil {
		t.Fatal(err)
	}
	a, errA := snapshot.Parse(got, snapshot.Limits{})
	b, errB := snapshot.Parse(want, snapshot.Limits{})
	if errA != nil || errB != nil || !snapshot.Equal(a, b) {
		t.Errorf("the export read from the database differs from kilo export's:\n got %.500s\nwant %.500s", got, want)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(after, data) {
		t.Errorf("reading changed the database (%v)", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("reading left files beside the database: %v", entries)
	}
}

// TestOpenRefusesWhatIsNoSessionDatabase: a file that is not an
// OpenCode-shaped database is refused, saying so.
func TestOpenRefusesWhatIsNoSessionDatabase(t *testing.T) {
	_, err := Open(context.Background(), kiloExport)
	if err == nil || !strings.Contains(err.Error(), "kilo/ses_ddb934ac0ffea44ANynVhkURW8.json") {
		t.Errorf("a JSON file opened as a database: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), empty); err == nil || !strings.Contains(err.Error(), "not an OpenCode or Kilo database") {
		t.Errorf("an empty file opened as a database: %v", err)
	}
}
