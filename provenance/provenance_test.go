package provenance

import (
	"bufio"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// A capture introduces the lines git diff would show it adding: one
// line changed in a file written again whole is that line alone; and
// where a line that proves nothing by itself was added.
func TestIntroduce(t *testing.T) {
	prev := splitLines([]byte("package a\n\nfunc A() {\n}\n"))
	cur := splitLines([]byte("package a\n\nfunc A() {\n\tx()\n}\n\nfunc Bee() {\n}"))
	c := introduce(prev, cur)
	want := sortedSet([]uint64{lineHash("\tx()"), lineHash(""), lineHash("func Bee() {"), lineHash("}")})
	if !reflect.DeepEqual(c.Exact, want) {
		t.Fatalf("introduced %x, want %x", c.Exact, want)
	}
	// A function added after another: its closing brace is the one
	// added, as git diff shows it, not the other's.
	prev = splitLines([]byte("func A() {\n}\n"))
	cur = splitLines([]byte("func A() {\n}\n\nfunc Bee() {\n}\n"))
	wantContext := []lineContext{
		{lineHash(""), lineHash("}"), lineHash("func Bee() {")},
		{lineHash("}"), lineHash("func Bee() {"), 0},
	}
	if c := introduce(prev, cur); !reflect.DeepEqual(c.Context, wantContext) {
		t.Errorf("contexts %x, want %x", c.Context, wantContext)
	}
	if a, _ := normHash("\treturn  x"); a != func() uint64 { h, _ := normHash("return x"); return h }() {
		t.Error("white space changes the normalised hash")
	}
	if _, ok := normHash(" \t "); ok {
		t.Error("a blank line has a normalised hash")
	}
	if !isBinary([]byte("a\x00b")) || isBinary([]byte("text\n")) {
		t.Error("isBinary")
	}
}

// What the index keeps of a session reads back as it was written, and a
// file damaged anywhere reads as damaged, never as something else.
func TestSessionLinesRoundTrip(t *testing.T) {
	id := func(b byte) storage.ID { var x storage.ID; x[0], x[19] = b, b; return x }
	at := time.Date(2030, 1, 2, 3, 4, 5, 6e6, time.UTC)
	sl := &sessionLines{Ref: "refs/snap/s1", Session: "s1", Remote: "origin", Tip: id(1), TipSeq: 9, Agent: "claude-code",
		Edits:  []edit{{ID: id(2), Seq: 3, Turn: 1, Time: at, Model: "m"}, {ID: id(3), Seq: 5, Turn: 2, Time: at, Model: ""}},
		Codes:  []codeSeen{{id(4), 1}, {id(5), 6}},
		Prunes: []pruneSeen{{id(6), 4, at}}, Started: at, Kept: at.Add(time.Hour),
		Files: map[string][]capture{"a.go": {{Edit: 0, Exact: []uint64{1, 5, 1 << 63}, Norm: []uint64{7}, Context: []lineContext{{1, 0, 1 << 63}}}, {Edit: 1}}},
		Last:  map[string]storage.ID{"a.go": id(7)}, LastFiles: storage.FileSetID(id(8)), LastCalls: 4, LastModel: "m",
		LastOut: map[string]int64{"m": 40}, Prompts: []string{"first", "second"}, PromptsAt: id(1), PromptsWhole: true}
	data := sl.encode()
	got, err := decodeSession(data)
	if err != nil {
		t.Fatal(err)
	}
	got.Files["a.go"][1].Exact, got.Files["a.go"][1].Norm = nil, nil
	if !reflect.DeepEqual(got, sl) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, sl)
	}
	for i := range data {
		bad := append([]byte{}, data...)
		bad[i] ^= 0x10
		if _, err := decodeSession(bad); err == nil {
			t.Fatalf("a byte changed at %d reads without error", i)
		}
	}
	if _, err := decodeSession(data[:len(data)-1]); err == nil {
		t.Fatal("a cut file reads without error")
	}
}

// git blame --porcelain gives a commit's details once, and later lines
// of it the header alone: each line gets its commit's path.
func TestParsePorcelain(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	in := a + " 1 1 1\nauthor Ada\nauthor-time 100\ncommitter-time 200\nsummary one\nboundary\nfilename old.go\n\tx\n" +
		b + " 2 2 1\nauthor Bea\nauthor-time 300\ncommitter-time 400\nsummary two\nprevious " + a + " old.go\nfilename new.go\n\ty\n" +
		a + " 2 3 1\n\tz\n"
	lines, commits, err := parsePorcelain(bufio.NewReader(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	want := []blamed{{storage.NewID(a), 1, 1, "old.go", "x"}, {storage.NewID(b), 2, 2, "new.go", "y"}, {storage.NewID(a), 2, 3, "old.go", "z"}}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("lines %+v", lines)
	}
	if c := commits[storage.NewID(b)]; c.Author != "Bea" || c.Committed.Unix() != 400 || c.Time.Unix() != 300 {
		t.Errorf("commit %+v", c)
	}
	if _, _, err := parsePorcelain(bufio.NewReader(strings.NewReader("author Ada\n"))); err == nil {
		t.Error("details before any commit read without error")
	}
}
