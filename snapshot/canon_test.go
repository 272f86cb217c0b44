package snapshot_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

func canon(t *testing.T, in string) string {
	t.Helper()
	v, err := snapshot.Parse([]byte(in), snapshot.Limits{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	out, err := snapshot.Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%q): %v", in, err)
	}
	return string(out)
}

func TestCanonicalForms(t *testing.T) {
	for in, want := range map[string]string{
		// Integers keep every digit, whatever their size, and their sign.
		`123456789012345678901234567890`: `123456789012345678901234567890`,
		`9007199254740993`:               `9007199254740993`,
		`-0`:                             `-0`,
		`[0, -0, -0.0, 0.0, 0e5]`:        `[0,-0,-0,0,0]`,
		// Other numbers: exact value, ECMAScript layout (RFC 8785).
		`1.50`:                                  `1.5`,
		`1E2`:                                   `100`,
		`1e21`:                                  `1e+21`,
		`123e19`:                                `1.23e+21`,
		`123e17`:                                `12300000000000000000`,
		`0.0000001`:                             `1e-7`,
		`0.000001`:                              `0.000001`,
		`1.2345e-10`:                            `1.2345e-10`,
		`3.14159265358979323846264338327950288`: `3.14159265358979323846264338327950288`,
		`1e400`:                                 `1e+400`,
		`-12.5E-1`:                              `-1.25`,
		// Strings: only what must be escaped is, in the shortest form.
		`"\u00e9\/\u0041"`:       `"é/A"`,
		`"\ud83d\ude00"`:         `"😀"`,
		`"\u001f\b\f\n\r\t\"\\"`: `"\u001f\b\f\n\r\t\"\\"`,
		`"\u2028<&>"`:            "\"\u2028<&>\"",
		// Keys sorted by UTF-16 code units: U+1F600 (D83D DE00) before U+E000.
		`{"😀":1,"\ue000":2,"b":3,"a":{"z":[],"y":{}}}`: "{\"a\":{\"y\":{},\"z\":[]},\"b\":3,\"😀\":1,\"\ue000\":2}",
		// RFC 8785 §3.2.3 sorting example.
		`{"\u20ac":"Euro","\r":"CR","\ufb33":"Hebrew","1":"One","\ud83d\ude00":"Smiley","\u0080":"Control","\u00f6":"Latin"}`: "{\"\\r\":\"CR\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin\",\"€\":\"Euro\",\"😀\":\"Smiley\",\"\ufb33\":\"Hebrew\"}",
		"  {\n\"a\" :\t[ 1 , 2 ] }\r\n": `{"a":[1,2]}`,
	} {
		if got := canon(t, in); got != want {
			t.Errorf("canonical(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestParseRejectsWithPosition(t *testing.T) {
	for _, c := range []struct {
		in, msg   string
		line, col int
	}{
		{`{"a":1,"a":2}`, `duplicate key "*" (1 bytes`, 1, 8},
		{`{"ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2":1,"ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2":2}`, `duplicate key "gh************B2" (40 bytes`, 1, 47},
		{`{"a": NaN}`, "NaN is not a JSON number", 1, 7},
		{`[1, Infinity]`, "Infinity", 1, 5},
		{`[-Infinity]`, "-Infinity", 1, 2},
		{"{\"a\":\n \"\xff\"}", "invalid UTF-8", 2, 3},
		{`["\ud800"]`, "lone surrogate", 1, 3},
		{`["\udc00x"]`, "lone surrogate", 1, 3},
		{`["\ud800\u0041"]`, "lone surrogate", 1, 3},
		{`{"a": [1, 2}`, "expected ',' or ']'", 1, 12},
		{`{"a": 01}`, "leading zeros", 1, 7},
		{`{"a": 1.}`, "digits after the decimal point", 1, 9},
		{`{"a": "x`, "truncated", 1, 9},
		{`{"a": 1`, "truncated", 1, 8},
		{`{"a": 1} x`, "after the JSON value", 1, 10},
		{"\"tab\there\"", "control character", 1, 5},
		{`{"a": 1e999999999999}`, "exponent", 1, 7},
		{``, "truncated", 1, 1},
	} {
		_, err := snapshot.Parse([]byte(c.in), snapshot.Limits{})
		var se *snapshot.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a SyntaxError", c.in, err)
			continue
		}
		if !strings.Contains(se.Msg, c.msg) || se.Line != c.line || se.Column != c.col {
			t.Errorf("Parse(%q) = %v; want %q at line %d column %d", c.in, err, c.msg, c.line, c.col)
		}
	}
}

func TestParseErrorNamesJSONPath(t *testing.T) {
	_, err := snapshot.Parse([]byte(`{"messages":[{"id":1},{"id":2,"id":3}]}`), snapshot.Limits{})
	if err == nil || !strings.Contains(err.Error(), "$.messages[1]") {
		t.Errorf("error %v does not name $.messages[1]", err)
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if _, err := snapshot.Parse([]byte(deep), snapshot.Limits{MaxDepth: 100}); err == nil || !strings.Contains(err.Error(), "deeper than 100") {
		t.Errorf("depth 200 with limit 100: %v", err)
	}
	if _, err := snapshot.Parse([]byte(deep), snapshot.Limits{}); err != nil {
		t.Errorf("depth 200 within the default limit: %v", err)
	}
	if _, err := snapshot.Parse([]byte(`"0123456789"`), snapshot.Limits{MaxBytes: 5}); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("size limit: %v", err)
	}
}

// For generated documents, the canonical form is idempotent and does not
// depend on the key order or white space of the input.
func TestCanonicalProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		doc := testdocs.Random(r)
		c1, err := snapshot.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		v, err := snapshot.Parse(c1, snapshot.Limits{})
		if err != nil {
			t.Fatalf("doc %d: canonical output does not parse: %v", i, err)
		}
		c2, _ := snapshot.Marshal(v)
		if !bytes.Equal(c1, c2) {
			t.Fatalf("doc %d: not idempotent", i)
		}
		indented, _ := snapshot.MarshalIndent(doc)
		v2, err := snapshot.Parse(indented, snapshot.Limits{})
		if err != nil {
			t.Fatalf("doc %d: indented form does not parse: %v", i, err)
		}
		if c3, _ := snapshot.Marshal(v2); !bytes.Equal(c1, c3) {
			t.Fatalf("doc %d: indented form reads back differently", i)
		}
		// Re-serialising with encoding/json (different key order, escapes
		// and white space) gives the same canonical bytes.
		shuffled := reencode(t, indented)
		v3, err := snapshot.Parse(shuffled, snapshot.Limits{})
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if c4, _ := snapshot.Marshal(v3); !bytes.Equal(c1, c4) {
			t.Fatalf("doc %d: encoding/json's form canonicalises differently:\n%s\n%s", i, c1, c4)
		}
	}
}

// reencode re-serialises data with encoding/json: HTML-escaped, with \u
// escapes for U+2028, keys in Go's order, and tab indentation.
func reencode(t *testing.T, data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every finite float64, formatted in its shortest form, canonicalises to
// a literal that parses back to the same float.
func TestFloatsReadBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		lit := strconv.FormatFloat(f, 'g', -1, 64)
		n, err := snapshot.CanonicalNumber(lit)
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		back, err := strconv.ParseFloat(string(n), 64)
		if err != nil || back != f {
			t.Fatalf("%s canonicalised to %s, which parses back as %v", lit, n, back)
		}
	}
}

func TestGoValuesEncode(t *testing.T) {
	got, err := snapshot.Marshal(map[string]any{"i": 3, "f": 2.5, "big": uint64(math.MaxUint64), "n": json.Number("1.0"), "neg0": math.Copysign(0, -1)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"big":18446744073709551615,"f":2.5,"i":3,"n":1,"neg0":-0}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := snapshot.Marshal(map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN encoded")
	}
	if _, err := snapshot.Marshal(map[string]any{"x": "\xff"}); err == nil {
		t.Error("invalid UTF-8 encoded")
	}
}

func TestIndentLayout(t *testing.T) {
	got, _ := snapshot.MarshalIndent(map[string]any{"b": []any{}, "a": []any{snapshot.Number("1"), map[string]any{}}})
	want := "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":[1,2.50,-0,1e400,"\ud83d\ude00"]}`, `{"a":1,"a":2}`, `[NaN]`, "\"\xff\"",
		`{"messages":[{"id":"x","content":[{"type":"text","text":"hi"}]}]}`, `123456789012345678901234567890`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := snapshot.Parse(data, snapshot.Limits{MaxDepth: 500})
		if err != nil {
			var se *snapshot.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a SyntaxError: %v", err)
			}
			if json.Valid(data) && !strings.Contains(se.Msg, "duplicate") && !strings.Contains(se.Msg, "surrogate") &&
				!strings.Contains(se.Msg, "exponent") && !strings.Contains(se.Msg, "deeper") && !strings.Contains(se.Msg, "UTF-8") {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		c1, err := snapshot.Marshal(v)
		if err != nil {
			t.Fatalf("parsed value does not encode: %v", err)
		}
		if !json.Valid(c1) {
			t.Fatalf("canonical form is not valid JSON: %q", c1)
		}
		v2, err := snapshot.Parse(c1, snapshot.Limits{MaxDepth: 500})
		if err != nil {
			t.Fatalf("canonical form does not parse: %v", err)
		}
		if c2, _ := snapshot.Marshal(v2); !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent: %q → %q", c1, c2)
		}
	})
}
