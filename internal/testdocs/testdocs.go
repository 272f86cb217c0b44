// Package testdocs builds documents for tests and benchmarks: random
// ones that cover every corner of JSON, and ones built from the real
// Claude Code transcripts in testdata/claude-code.
package testdocs

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Root returns the module's root directory, found from this file's
// location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TranscriptDir returns the directory that holds the real transcripts
// (see its SOURCE.md).
func TranscriptDir() string { return filepath.Join(Root(), "testdata", "claude-code") }

// Transcript is one JSONL file, split into its complete lines.
type Transcript struct {
	Name  string // path relative to TranscriptDir
	Lines [][]byte
}

// Transcripts reads every .jsonl file under TranscriptDir, including
// subagent transcripts.
func Transcripts() ([]Transcript, error) {
	var out []Transcript
	root := TranscriptDir()
	err := filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		t := Transcript{Name: rel}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				t.Lines = append(t.Lines, append([]byte(nil), sc.Bytes()...))
			}
		}
		out = append(out, t)
		return sc.Err()
	})
	if len(out) == 0 && err == nil {
		err = fmt.Errorf("no transcripts under %s", root)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Longest reads the transcripts and returns the one with the most lines.
func Longest() (Transcript, error) {
	ts, err := Transcripts()
	if err != nil {
		return Transcript{}, err
	}
	longest := ts[0]
	for _, t := range ts {
		if len(t.Lines) > len(longest.Lines) {
			longest = t
		}
	}
	return longest, nil
}

// Document builds a snapshot document from the first n lines of a
// transcript. Each line becomes one message, unchanged.
func (t Transcript) Document(n int) (map[string]any, error) {
	msgs := make([]any, 0, n)
	for i, line := range t.Lines[:n] {
		v, err := snapshot.Parse(line, snapshot.Limits{})
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", t.Name, i+1, err)
		}
		msgs = append(msgs, v)
	}
	return map[string]any{
		"source":     "claude-code",
		"transcript": t.Name,
		"messages":   msgs,
	}, nil
}

// Random returns a random document: nested config, messages and events
// of mixed shapes, captured files (text, binary, executable), and edge
// cases of JSON (huge integers, exact decimals, -0, escapes, astral
// characters, deep nesting, empty containers).
func Random(r *rand.Rand) map[string]any {
	doc := map[string]any{}
	for range r.IntN(4) {
		doc[randKey(r)] = randValue(r, 4)
	}
	if r.IntN(4) > 0 {
		msgs := make([]any, r.IntN(300))
		for i := range msgs {
			msgs[i] = randMessage(r, i)
		}
		doc["messages"] = msgs
	}
	if r.IntN(3) == 0 {
		events := make([]any, r.IntN(40))
		for i := range events {
			events[i] = map[string]any{"type": "post_tool", "ts_ms": snapshot.Number(fmt.Sprint(1700000000000 + i)), "data": randValue(r, 2)}
		}
		doc["events"] = events
	}
	if r.IntN(3) == 0 {
		doc["files"] = randFiles(r)
	}
	return doc
}

func randMessage(r *rand.Rand, i int) any {
	switch r.IntN(5) {
	case 0:
		return randValue(r, 2) // not every message is an object
	case 1:
		return map[string]any{"role": "user", "content": randString(r)}
	}
	m := map[string]any{
		"id":      fmt.Sprintf("msg-%d-%d", i, r.IntN(1000)),
		"role":    []string{"user", "assistant", "tool"}[r.IntN(3)],
		"content": []any{map[string]any{"type": "text", "text": randString(r)}},
	}
	if r.IntN(2) == 0 {
		m["usage"] = map[string]any{"input_tokens": snapshot.Number(fmt.Sprint(r.IntN(5000))), "output_tokens": snapshot.Number(fmt.Sprint(r.IntN(500)))}
	}
	return m
}

func randFiles(r *rand.Rand) map[string]any {
	files := map[string]any{}
	for i := range r.IntN(6) {
		p := fmt.Sprintf("dir%d/sub/file-%d.txt", r.IntN(3), i)
		switch r.IntN(3) {
		case 0:
			files[p] = map[string]any{"content": randString(r)}
		case 1:
			files[p] = map[string]any{"content": "#!/bin/sh\necho hi\n", "mode": snapshot.ModeExecutable, "note": randValue(r, 1)}
		default:
			raw := make([]byte, r.IntN(64))
			for j := range raw {
				raw[j] = byte(r.IntN(256))
			}
			files[p] = map[string]any{"content": b64(raw), "encoding": "base64"}
		}
	}
	return files
}

var edgeNumbers = []string{
	"0", "-0", "1", "-1", "9007199254740993", "-9007199254740993",
	"123456789012345678901234567890123456789", "0.1", "1.5", "1e+21", "1e-7",
	"3.141592653589793238462643383279", "2.5e-300", "-1.7976931348623157e+308", "1e+400",
}

var edgeStrings = []string{
	"", "plain", "quote \" backslash \\ slash /", "tab\tnewline\nreturn\r", "\x00\x01\x1f control",
	"é ü ñ 中文", "emoji 😀 𝄞 astral", "\u2028\u2029 separators", "\ufeff bom", "<script>&amp;</script>",
}

func randValue(r *rand.Rand, depth int) any {
	if depth == 0 {
		return randScalar(r)
	}
	switch r.IntN(6) {
	case 0:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randKey(r)] = randValue(r, depth-1)
		}
		return m
	case 1:
		a := make([]any, r.IntN(5))
		for i := range a {
			a[i] = randValue(r, depth-1)
		}
		return a
	case 2:
		v := any("deep")
		for range 50 + r.IntN(200) {
			v = []any{v}
		}
		return v
	}
	return randScalar(r)
}

func randScalar(r *rand.Rand) any {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return snapshot.Number(edgeNumbers[r.IntN(len(edgeNumbers))])
	case 3:
		n, _ := snapshot.CanonicalNumber(fmt.Sprintf("%g", r.NormFloat64()*1e6))
		return n
	}
	return randString(r)
}

func randString(r *rand.Rand) string {
	s := edgeStrings[r.IntN(len(edgeStrings))]
	if r.IntN(2) == 0 {
		s += fmt.Sprint(r.Int64())
	}
	return s
}

func randKey(r *rand.Rand) string {
	keys := []string{"a", "b", "config", "metadata", "é", "😀", "\ue000", "key with space", "", "A", "10", "2"}
	return keys[r.IntN(len(keys))] + fmt.Sprint(r.IntN(3))
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
