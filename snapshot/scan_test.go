package snapshot_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// scanAgrees checks that ScanDocument accepts the same input as
// ParseDocument, returns the same document, and rejects other input with
// the same error. It reports whether the input was accepted.
func scanAgrees(t *testing.T, data []byte, lim snapshot.Limits) bool {
	t.Helper()
	want, werr := snapshot.ParseDocument(data, lim)
	d, gerr := snapshot.ScanDocument(data, lim)
	if werr != nil || gerr != nil {
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%.200q:\nParseDocument: %v\nScanDocument:  %v", data, werr, gerr)
		}
		return false
	}
	got, err := d.Document()
	if err != nil {
		t.Fatalf("%.200q: Document: %v", data, err)
	}
	if !snapshot.Equal(got, want) {
		t.Fatalf("%.200q: scanned document differs", data)
	}
	for _, m := range []string{snapshot.MemberMessages, snapshot.MemberEvents} {
		arr, _ := want[m].([]any)
		_, inDoc := want[m]
		_, inRest := d.Others[m]
		if inRest != (inDoc && len(arr) == 0) || d.Len(m) != len(arr) {
			t.Fatalf("%.200q: %d %s scanned, want %d (in Others only when not a non-empty array)", data, d.Len(m), m, len(arr))
		}
	}
	return true
}

// A scanned document equals the parsed one, and a damaged one fails with
// the same error (position, JSON path, problem). The test covers every
// generated document, then each one truncated, and each one with a byte
// changed, at many positions.
func TestScanAgreesWithParse(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 4))
	lims := []snapshot.Limits{{}, {MaxDepth: 5}, {MaxValueBytes: 40}, {MaxBytes: 3000}}
	bad := []byte(`"\{[]},:0-e9x` + "\x00\xff")
	for i := range 60 {
		data, err := snapshot.Marshal(testdocs.Random(r))
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			data, _ = snapshot.MarshalIndent(testdocs.Random(r))
		}
		lim := lims[i%len(lims)]
		scanAgrees(t, data, lim)
		for range 12 {
			at := r.IntN(len(data))
			scanAgrees(t, data[:at], lim)
			changed := bytes.Clone(data)
			changed[at] = bad[r.IntN(len(bad))]
			scanAgrees(t, changed, lim)
		}
	}
}

func TestScanEdges(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	for _, in := range []string{
		`{}`, `[]`, `"x"`, `  {"messages": []} `, `{"messages": [ ]}`, `{"messages": null}`, `{"messages": {}}`,
		`{"messages": [1, {"a": 2}, "s", [], {}]}`, `{"events": [{"type": "start"}], "messages": [{}]}`,
		`{"messages": [1], "messages": [2]}`, `{"messages": [{"a": 1, "a": 2}]}`, `{"messages": [1] , }`,
		`{"messages": [1,]}`, `{"messages": [1 2]}`, `{"messages": [` + deep + `]}`, `{"messages": [NaN]}`,
		`{"messages": ["\ud800"]}`, "{\"messages\": [\"\xff\"]}", `{"messages": [1e1000000001]}`, `{"messages": [1]} x`,
		`{"messages": [{"k": "` + strings.Repeat("é", 30) + `"}]}`, `{"messages": ["\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"]}`,
		`{"a": {"messages": [1]}, "messages": [[[[1]]]]}`, `{"files": [1], "messages": [2]}`,
	} {
		for _, lim := range []snapshot.Limits{{}, {MaxDepth: 3}, {MaxDepth: 1}, {MaxValueBytes: 40}} {
			scanAgrees(t, []byte(in), lim)
		}
	}
}

// Elements are found at their positions, whatever the white space.
func TestScanElements(t *testing.T) {
	d, err := snapshot.ScanDocument([]byte("{\"config\":{\"m\":1},\n \"messages\" :\t[ {\"a\":\"x\"} ,\n2,\"three\" ]}"), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range d.Len(snapshot.MemberMessages) {
		v, err := d.Element(snapshot.MemberMessages, i)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := snapshot.Marshal(v)
		got = append(got, string(b))
	}
	if fmt.Sprint(got) != `[{"a":"x"} 2 "three"]` || len(d.Others) != 1 {
		t.Errorf("elements %v, rest %v", got, d.Others)
	}
}
