// Package render writes snapshots, conversations, statistics and diffs
// for people (text, coloured or not) and for scripts (JSON, YAML). It is
// separately from the command line so that every way of showing a snapshot
// (the terminal, an export, a viewer) shows it the same way; it writes
// to an io.Writer and knows nothing of flags, pagers or terminals.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/git-snap/git-snap/snapshot"
)

// Palette colours text with ANSI escapes when On, and leaves it as it is
// otherwise.
type Palette struct{ On bool }

func (p Palette) wrap(code, s string) string {
	if !p.On || s == "" {
		return s
	}
	// The reset goes before a final newline, as git puts it: a pager or
	// terminal that cuts the line keeps the colour from running on.
	if body, ok := strings.CutSuffix(s, "\n"); ok {
		return "\x1b[" + code + "m" + body + "\x1b[m\n"
	}
	return "\x1b[" + code + "m" + s + "\x1b[m"
}

// Yellow marks snapshot ids and changed elements.
func (p Palette) Yellow(s string) string { return p.wrap("33", s) }

// Green marks what was added and what succeeded.
func (p Palette) Green(s string) string { return p.wrap("32", s) }

// Red marks what was removed and what failed.
func (p Palette) Red(s string) string { return p.wrap("31", s) }

// Cyan marks sessions, checkpoints and tool calls.
func (p Palette) Cyan(s string) string { return p.wrap("36", s) }

// Bold marks headings.
func (p Palette) Bold(s string) string { return p.wrap("1", s) }

// Dim marks what is said about the output rather than shown in it.
func (p Palette) Dim(s string) string { return p.wrap("2", s) }

// JSON writes v as indented JSON for scripts. Numbers held as
// snapshot.Number keep every digit.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// yamlNode converts a JSON value into a YAML node, keys in canonical
// order, numbers written as they are.
func yamlNode(v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}
	case snapshot.Number:
		tag := "!!float"
		if _, ok := v.Int64(); ok || isIntLiteral(string(v)) {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range v {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range sortedKeys(v) {
			n.Content = append(n.Content, yamlNode(k), yamlNode(v[k]))
		}
		return n
	}
	b, _ := snapshot.Marshal(v)
	return &yaml.Node{Kind: yaml.ScalarNode, Value: string(b)}
}

func isIntLiteral(s string) bool {
	for i, c := range s {
		if (c < '0' || c > '9') && (i != 0 || c != '-') {
			return false
		}
	}
	return s != "" && s != "-"
}

// YAML writes a JSON value as YAML, keys in canonical order and numbers
// as they are written in the document.
func YAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(v)); err != nil {
		return err
	}
	return enc.Close()
}

// Value turns a struct meant for encoding/json into a JSON value
// (for YAML output), by way of the canonical parser.
func Value(v any) any {
	var buf bytes.Buffer
	if JSON(&buf, v) != nil {
		return nil
	}
	out, err := snapshot.Parse(buf.Bytes(), snapshot.Limits{})
	if err != nil {
		return nil
	}
	return out
}
