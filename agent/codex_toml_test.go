package agent

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	reftoml "github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2"
	"github.com/rogpeppe/go-internal/txtar"
)

// git-snap reads Codex's config.toml with go-toml v2 (decodeTOML); it
// used BurntSushi/toml, which is kept here, in tests only, as the
// reference the new decoder is held to: on the shapes Codex config files
// have (testdata/codex-config: accept/ and reject/ hold what Codex
// 0.169.0 itself reads and refuses, checked against the real Codex by
// internal/liveagents), on every config.toml in the repository's
// testdata, and under fuzzing, both accept and refuse the same files and
// decode what they accept to equal values.
//
// Where they differ, the test names the case and Codex's verdict. Both
// read TOML 1.1 (escapes \e and \xHH, times without seconds, inline
// tables over several lines), and so does Codex (toml11.toml). Found:
//
//   - a UTF-8 byte order mark first: BurntSushi skips it, go-toml refuses
//     it, Codex reads the file; decodeTOML drops it (bom.toml);
//   - a table defined by dotted keys, then again by a [header]
//     (features.hooks = true, later [features]): BurntSushi takes it,
//     go-toml and Codex refuse it ("duplicate key"), as TOML 1.0 and 1.1
//     do (dotted-then-table.toml);
//   - an inline table extended by a [header] below it
//     (shell_environment_policy = { ... }, later
//     [shell_environment_policy.set]): BurntSushi takes it, go-toml and
//     Codex refuse it ("cannot extend value of type inline table"), as
//     TOML does (inline-table-extended.toml);
//   - a table defined by dotted keys, then set whole as a value
//     (features.hooks = true, later features = false): BurntSushi keeps
//     the table and drops the value, go-toml and Codex refuse it
//     ("duplicate key"; dotted-then-value.toml);
//   - a UTF-16 byte order mark (FF FE or FE FF) before UTF-8 text:
//     BurntSushi skips it, go-toml refuses it, and Codex refuses any
//     file that is not UTF-8 (utf16-bom-utf8-text.toml). A file wholly
//     in UTF-16, as Windows PowerShell 5 writes with >, all three refuse
//     (utf16.toml); BurntSushi's message said "probably using UTF-16",
//     go-toml's says "invalid character at start of key: U+00FF";
//   - six quotes closing a multi-line string after an escaped backslash
//     ("""ends in \\""""""): BurntSushi reads three of them into the
//     string, go-toml and Codex refuse it, as at most two may be
//     (too-many-quotes.toml; found by FuzzTOMLDecoders);
//   - an offset out of range (+05:60, +24:00): BurntSushi takes it,
//     go-toml and Codex refuse it (offset-out-of-range.toml; found by
//     FuzzTOMLDecoders).
//
// In each but the first, git-snap now refuses, as Codex does, a file it
// used to read. One goes the other way: a leap second (23:59:60) Codex
// reads and both Go decoders refuse, as git-snap did before.
var refDeviations = map[string]string{
	"reject/dotted-then-table.toml":     "BurntSushi reads a table defined by dotted keys and then by a header; go-toml and Codex refuse it",
	"reject/inline-table-extended.toml": "BurntSushi reads an inline table extended by a header; go-toml and Codex refuse it",
	"reject/dotted-then-value.toml":     "BurntSushi reads a table defined by dotted keys and then as a value, dropping the value; go-toml and Codex refuse it",
	"reject/utf16-bom-utf8-text.toml":   "BurntSushi skips a UTF-16 byte order mark; go-toml and Codex refuse the file",
	"reject/too-many-quotes.toml":       "BurntSushi reads six quotes after an escaped backslash as three in the string and the end; go-toml and Codex refuse it",
	"reject/offset-out-of-range.toml":   "BurntSushi reads a time zone offset of 60 minutes or 24 hours; go-toml and Codex refuse it",
}

// tomlCase is one config.toml: accept says what Codex does with it, ""
// when not checked (a config.toml found in the repository's testdata).
type tomlCase struct {
	name, accept string
	data         []byte
}

// tomlCases gathers the shapes of testdata/codex-config, every other
// *.toml under testdata, and the config.toml files of the script tests'
// archives.
func tomlCases(t testing.TB) []tomlCase {
	t.Helper()
	var out []tomlCase
	root := filepath.Join("..", "testdata")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasSuffix(path, ".toml"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			c := tomlCase{name: filepath.ToSlash(rel), data: data}
			if dir, file, ok := strings.Cut(c.name, "/"); ok && dir == "codex-config" {
				c.name = file
				c.accept, _, _ = strings.Cut(file, "/")
			}
			out = append(out, c)
		case strings.HasSuffix(path, ".txtar"):
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".toml") {
					out = append(out, tomlCase{name: filepath.ToSlash(rel) + ":" + f.Name, data: f.Data})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 40 {
		t.Fatalf("%d config.toml files found under %s: testdata/codex-config is missing", len(out), root)
	}
	return out
}

// refDecode is how git-snap read a config.toml before: BurntSushi/toml
// on the whole file.
func refDecode(data []byte) (map[string]any, error) {
	var m map[string]any
	_, err := reftoml.Decode(string(data), &m)
	return m, err
}

func newDecode(data []byte) (map[string]any, error) {
	var m map[string]any
	err := decodeTOML(data, &m)
	return m, err
}

// TestTOMLDecoderMatchesReference: on every shape, the two decoders
// agree with each other (but for refDeviations) and with Codex, decode
// to equal values, and read git-snap's keys alike; a refused file's
// error is at a line of the file.
func TestTOMLDecoderMatchesReference(t *testing.T) {
	for _, c := range tomlCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ref, refErr := refDecode(c.data)
			got, err := newDecode(c.data)
			if c.accept != "" && (err == nil) != (c.accept == "accept") {
				t.Errorf("Codex would %s this file; go-toml: %v", c.accept, err)
			}
			if why, ok := refDeviations[c.name]; ok {
				if (err == nil) == (refErr == nil) {
					t.Errorf("listed as a deviation (%s), but both decoders say %v, %v", why, refErr, err)
				}
				return
			}
			if (err == nil) != (refErr == nil) {
				t.Fatalf("BurntSushi: %v; go-toml: %v", refErr, err)
			}
			if err != nil {
				checkErrorLine(t, c.data, err)
				return
			}
			if a, b := tomlNormal(ref), tomlNormal(got); !reflect.DeepEqual(a, b) {
				t.Errorf("decoded differently:\nBurntSushi %#v\ngo-toml    %#v", a, b)
			}
			checkCodexConfig(t, c.data, got)
		})
	}
}

// checkErrorLine: a refused file's error names a line of the file, for
// SettingsError to point at.
func checkErrorLine(t *testing.T, data []byte, err error) {
	t.Helper()
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("go-toml's error is a %T, not a *toml.DecodeError: no line to report", err)
	}
	if line, _ := de.Position(); line < 1 || line > strings.Count(string(data), "\n")+1 {
		t.Errorf("error at line %d of a %d-line file: %v", line, strings.Count(string(data), "\n")+1, err)
	}
}

// refCodexConfig is codexConfig as git-snap decoded it before, with
// BurntSushi filling a struct.
type refCodexConfig struct {
	Notify   []string                  `toml:"notify"`
	Features map[string]any            `toml:"features"`
	Projects map[string]map[string]any `toml:"projects"`
	Hooks    map[string]any            `toml:"hooks"`
}

// checkCodexConfig: git-snap's keys read from the new decoder's map are
// what the old struct decoding read.
func checkCodexConfig(t *testing.T, data []byte, all map[string]any) {
	t.Helper()
	var ref refCodexConfig
	if _, err := reftoml.Decode(string(data), &ref); err != nil {
		t.Fatalf("BurntSushi into git-snap's keys: %v", err)
	}
	got, err := codexConfigOf(all)
	if err != nil {
		t.Fatalf("git-snap's keys: %v", err)
	}
	want := codexConfig(ref) // struct tags aside, the same fields
	if fmt.Sprintf("%#v", tomlNormal(want)) != fmt.Sprintf("%#v", tomlNormal(got)) {
		t.Errorf("git-snap's keys:\nbefore %#v\nnow    %#v", want, got)
	}
}

// tomlNormal is a decoded value with the two decoders' different Go
// types for the same TOML made one, so that what is compared is what
// the file says:
//   - an array of tables: BurntSushi gives []map[string]any, go-toml
//     []any (git-snap's code asserts neither);
//   - a local date, time or date-time: BurntSushi gives a time.Time in a
//     zone of its own named "date-local" (...), go-toml its LocalDate,
//     LocalTime, LocalDateTime; both become the TOML text;
//   - an offset date-time: both give a time.Time, but BurntSushi's comes
//     from time.Parse, whose Location is time.Local when the offset is
//     the machine's and a new fixed zone otherwise: reflect.DeepEqual
//     compares Locations, so it becomes its RFC 3339 text;
//   - NaN, which reflect.DeepEqual never finds equal to itself.
//
// Values git-snap compares are always decoded by one decoder, so none of
// this is needed in git-snap itself.
func tomlNormal(v any) any {
	switch v := v.(type) {
	case codexConfig:
		return []any{v.Notify, tomlNormal(v.Features), tomlNormal(projectsAny(v.Projects)), tomlNormal(v.Hooks)}
	case map[string]any:
		if v == nil {
			return nil
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = tomlNormal(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = tomlNormal(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = tomlNormal(e)
		}
		return out
	case float64:
		if math.IsNaN(v) {
			return "NaN"
		}
		return v
	case time.Time:
		switch v.Location().String() {
		case "datetime-local":
			return "local date-time " + v.Format("2006-01-02T15:04:05.999999999")
		case "date-local":
			return "local date " + v.Format("2006-01-02")
		case "time-local":
			return "local time " + v.Format("15:04:05.999999999")
		}
		return "date-time " + v.Format(time.RFC3339Nano)
	case toml.LocalDateTime:
		return "local date-time " + v.AsTime(time.UTC).Format("2006-01-02T15:04:05.999999999")
	case toml.LocalDate:
		return "local date " + v.AsTime(time.UTC).Format("2006-01-02")
	case toml.LocalTime:
		return "local time " + time.Date(0, 1, 1, v.Hour, v.Minute, v.Second, v.Nanosecond, time.UTC).Format("15:04:05.999999999")
	}
	return v
}

func projectsAny(p map[string]map[string]any) map[string]any {
	if p == nil {
		return nil
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// FuzzTOMLDecoders: on any bytes, go-toml accepts what BurntSushi
// accepts and refuses what it refuses, decoding to equal values, but for
// the deviations named above.
func FuzzTOMLDecoders(f *testing.F) {
	for _, c := range tomlCases(f) {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, refErr := refDecode(data)
		got, err := newDecode(data)
		if (err == nil) != (refErr == nil) {
			if knownDeviation(data, refErr, err) {
				return
			}
			t.Fatalf("BurntSushi: %v; go-toml: %v\n%q", refErr, err, data)
		}
		if err != nil {
			var de *toml.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("go-toml's error is a %T: no line to report", err)
			}
			return
		}
		if a, b := tomlNormal(ref), tomlNormal(got); !reflect.DeepEqual(a, b) {
			t.Fatalf("decoded differently:\nBurntSushi %#v\ngo-toml    %#v\n%q", a, b, data)
		}
	})
}

// knownDeviation recognises a disagreement listed in refDeviations by
// go-toml's words for it, when BurntSushi read the file.
func knownDeviation(data []byte, refErr, err error) bool {
	if refErr != nil {
		return false
	}
	msg := err.Error()
	return bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) || // utf16-bom-utf8-text
		strings.Contains(msg, "already exists as defined by a dotted key") || // dotted-then-table
		strings.Contains(msg, "already exists as a value") || // inline-table-extended
		strings.Contains(msg, "is already defined") || // dotted-then-value: a key BurntSushi let be defined twice
		strings.Contains(msg, "too many quotes at the end of a multiline") || // too-many-quotes
		strings.Contains(msg, "invalid timezone offset") // offset-out-of-range
}

// TestCodexConfigKeys: git-snap's keys are read by their exact names, as
// Codex reads them (Codex 0.169.0 runs with Notify = 1 and [Features]
// hooks = 3, and refuses notify = 1); a table of another type reads as
// absent, and a notify that is not a list of strings is an error naming
// it, at no line (the file is TOML).
func TestCodexConfigKeys(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, toml string
		want       codexConfig
		err        string
	}{
		{name: "other case", toml: "Notify = [\"x\"]\n[Features]\nhooks = false\n[PROJECTS.\"/a\"]\ntrust_level = \"trusted\"\n"},
		{name: "wrong types", toml: "features = 1\nprojects = [1]\nhooks = \"x\"\n"},
		{name: "project not a table", toml: "[projects]\n\"/a\" = 1\n\"/b\" = { trust_level = \"trusted\" }\n",
			want: codexConfig{Projects: map[string]map[string]any{"/a": nil, "/b": {"trust_level": "trusted"}}}},
		{name: "empty notify", toml: "notify = []\n", want: codexConfig{Notify: []string{}}},
		{name: "notify", toml: "notify = ['a', \"b\"]\n[features]\nhooks = true\n",
			want: codexConfig{Notify: []string{"a", "b"}, Features: map[string]any{"hooks": true}}},
		{name: "notify not a list", toml: "\n\nnotify = 1\n", err: "config.toml: notify is 1, not a list of strings"},
		{name: "notify not strings", toml: "notify = [\"a\", 2]\n", err: "config.toml: notify is [a 2], not a list of strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "config.toml")
			must(t, os.WriteFile(path, []byte(tc.toml), 0o600))
			got, _, err := readCodexConfig(path)
			var se *SettingsError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("read: %v", err)
			case tc.err != "" && (!errors.As(err, &se) || se.Line != 0 || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("read: %v, want a SettingsError at no line saying %q", err, tc.err)
			case !reflect.DeepEqual(got, tc.want):
				t.Errorf("read %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestTOMLErrorLine: a file that is not TOML is reported at the line
// where Codex 0.169.0 reports it (its "config.toml:LINE:COLUMN").
// BurntSushi put an unclosed [table header at the line after it.
func TestTOMLErrorLine(t *testing.T) {
	dir := t.TempDir()
	for file, line := range map[string]int{ // Codex's lines, from internal/liveagents
		"array-then-table.toml": 3, "bad-escape.toml": 1, "control-char.toml": 1,
		"dotted-then-table.toml": 3, "dotted-then-value.toml": 3, "double-comma.toml": 1,
		"duplicate-key.toml": 2, "duplicate-table.toml": 4, "extra-bracket.toml": 1,
		"inline-table-extended.toml": 3, "int-overflow.toml": 2, "invalid-date.toml": 2,
		"leading-zero.toml": 2, "missing-equals.toml": 1, "missing-value.toml": 1,
		"static-array-appended.toml": 2, "table-twice-apart.toml": 7, "text-after-value.toml": 1,
		"too-many-quotes.toml": 1, "unclosed-array.toml": 2, "unclosed-table.toml": 2,
		"unterminated-multiline.toml": 2, "unterminated-string.toml": 1, "offset-out-of-range.toml": 3,
	} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "codex-config", "reject", file))
		must(t, err)
		path := filepath.Join(dir, file)
		must(t, os.WriteFile(path, data, 0o600))
		_, _, err = readCodexConfig(path)
		if want := fmt.Sprintf("%s:%d: not valid TOML", path, line); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %s", file, err, want)
		}
	}
}
