package snapshot_test

import (
	"fmt"

	"github.com/git-snap/git-snap/snapshot"
)

// Canonical JSON sorts keys, keeps every digit of an integer, and writes
// other numbers in their shortest exact form.
func ExampleMarshal() {
	v, err := snapshot.Parse([]byte(`{"b": 1.50, "a": 123456789012345678901234567890, "c": "\u00e9"}`), snapshot.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := snapshot.Marshal(v)
	fmt.Println(string(out))
	// Output: {"a":123456789012345678901234567890,"b":1.5,"c":"é"}
}

// Errors give the position: line, column, byte and JSON path.
func ExampleParse_error() {
	_, err := snapshot.Parse([]byte("{\"messages\": [\n  {\"id\": 1, \"id\": 2}]}"), snapshot.Limits{})
	fmt.Println(err)
	// Output: line 2, column 13 (byte 27), at $.messages[0]: duplicate key "**" (2 bytes, masked: a key may be a secret)
}

// A semantic diff matches messages by id and compares the other members
// by path.
func ExampleCompare() {
	a := map[string]any{"config": map[string]any{"t": 0.2}, "messages": []any{
		map[string]any{"id": "1", "role": "user", "content": "hi"}}}
	b := map[string]any{"config": map[string]any{"t": 0.7}, "messages": []any{
		map[string]any{"id": "1", "role": "user", "content": "hi"},
		map[string]any{"id": "2", "role": "assistant", "content": "hello"}}}
	d, _ := snapshot.Compare(a, b, nil)
	for _, m := range d.Messages {
		fmt.Println(m.Op, m.Key)
	}
	for _, m := range d.Members {
		fmt.Println(m.Op, m.Path)
	}
	ops := snapshot.MakePatch(a, b)
	fmt.Println(len(ops), "patch operations")
	// Output:
	// added 2
	// changed $.config.t
	// 2 patch operations
}
