package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-snap/git-snap/snapshot"
)

// pager returns where a reading command writes: through a pager when
// stdout is a terminal ($GIT_PAGER, $PAGER, else less), else stdout.
// done waits for the pager to finish.
func (e *env) pager(c *cli.Context) (w io.Writer, done func()) {
	nothing := func() {}
	if !e.terminal || flagString(c, "no-pager") == "true" {
		return e.stdout, nothing
	}
	cmdline := e.getenv("GIT_PAGER")
	if cmdline == "" {
		cmdline = e.getenv("PAGER")
	}
	if cmdline == "" {
		cmdline = "less"
	}
	if cmdline == "cat" {
		return e.stdout, nothing
	}
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	cmd.Env = os.Environ()
	if e.getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // quit if one screen, keep colour
	}
	if e.getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return e.stdout, nothing
	}
	return in, func() {
		in.Close()
		_ = cmd.Wait() // the pager's own exit status is the user's business
	}
}

// color reports whether to colour output: --color, NO_COLOR, a terminal.
func (e *env) color(c *cli.Context) bool {
	switch flagString(c, "color") {
	case "always":
		return true
	case "never":
		return false
	}
	return e.terminal && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// checkColorFlag rejects a --color value other than the three known.
func checkColorFlag(c *cli.Context) error {
	switch v := flagString(c, "color"); v {
	case "auto", "always", "never":
		return nil
	default:
		return usagef("--color takes auto, always or never, not %q", v)
	}
}

// palette colours text when on.
type palette struct{ on bool }

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[m"
}

func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) red(s string) string    { return p.wrap("31", s) }
func (p palette) cyan(s string) string   { return p.wrap("36", s) }
func (p palette) bold(s string) string   { return p.wrap("1", s) }
func (p palette) dim(s string) string    { return p.wrap("2", s) }

// writeJSON writes v as indented JSON for scripts. Numbers held as
// snapshot.Number keep every digit.
func writeJSON(w io.Writer, v any) error {
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

func writeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(v)); err != nil {
		return err
	}
	return enc.Close()
}
