package snapshot

import (
	"fmt"
	"testing"
)

func TestMergeDocumentsThreeWays(t *testing.T) {
	doc := func(js string) map[string]any {
		d, err := ParseDocument([]byte(js), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := doc(`{"a":1,"b":1,"c":1,"gone":1,"messages":[{"id":"1","c":"x"}],"files":{"f":{"content":"0"},"g":{"content":"0"}}}`)
	local := doc(`{"a":2,"b":1,"c":3,"messages":[{"id":"1","c":"x"},{"id":"L","c":"l"},{"id":"both","c":"mine"}],"files":{"f":{"content":"L"},"g":{"content":"0"}}}`)
	remote := doc(`{"a":1,"b":5,"c":4,"gone":1,"new":7,"messages":[{"id":"1","c":"x"},{"id":"R","c":"r"},{"id":"both","c":"theirs"}],"files":{"f":{"content":"R"},"g":{"content":"G"}}}`)
	got, conflicts := MergeDocuments(base, local, remote, nil)
	want := doc(`{"a":2,"b":5,"c":3,"new":7,"messages":[{"id":"1","c":"x"},{"id":"L","c":"l"},{"id":"both","c":"mine"},{"id":"R","c":"r"}],"files":{"f":{"content":"L"},"g":{"content":"G"}}}`)
	if !Equal(got, want) {
		a, _ := Marshal(got)
		t.Errorf("merged %s", a)
	}
	if fmt.Sprint(conflicts) != `[$.c $.files.f $.messages[both]]` {
		t.Errorf("conflicts %v", conflicts)
	}
}
