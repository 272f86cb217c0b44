package cmdline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/docs/schema"
	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/render"
)

// Every command with --json takes gh's two ways to cut its output:
// --json FIELD,… keeps those fields (of each item of the command's list,
// or of the object when it has none) and --jq EXPR filters the output
// with a jq expression (gojq, the Go jq). Field names are read from the
// command's JSON Schema in docs/schema, the one description of the
// output.

// jsonOutput is what a command's output is: its schema, and the key of
// its list when fields name the list's items.
type jsonOutput struct {
	schema string // docs/schema/<schema>.schema.json
	list   string // the top-level list whose items --json FIELD,… cuts; "" for the object itself
}

// jsonOutputs are the commands with --json.
var jsonOutputs = map[string]jsonOutput{
	"log":        {"log", "snapshots"},
	"sessions":   {"sessions", "sessions"},
	"search":     {"search", "hits"},
	"checkpoint": {"checkpoint-list", "checkpoints"},
	"scan":       {"scan", "findings"},
	"doctor":     {"doctor", "agents"},
	"show":       {"show", ""},
	"diff":       {"diff", ""},
	"stats":      {"stats", ""},
	"trace":      {"trace", ""},
	"usage":      {"usage", "rows"},
	"pr":         {"pr", "sessions"},
	"blame":      {"blame", "lines"},
}

// jsonFlags are the flags a command with --json takes besides it: --jq,
// and --json-fields, which --json FIELD,… is read into (see gitFlags).
func jsonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "jq", Usage: "filter the JSON output with the jq expression `EXPR` (implies --json)"},
		&cli.StringFlag{Name: "json-fields", Hidden: true},
	}
}

// schemaFields lists the fields --json FIELD,… may name for a command:
// the properties of its list's items, or of its object.
func schemaFields(cmd string) ([]string, error) {
	out, ok := jsonOutputs[cmd]
	if !ok {
		return nil, fmt.Errorf("%s has no JSON output", cmd)
	}
	root, err := readSchema(out.schema + ".schema.json")
	if err != nil {
		return nil, err
	}
	node := root
	if out.list != "" {
		props, _ := root["properties"].(map[string]any)
		list, _ := props[out.list].(map[string]any)
		item, _ := list["items"].(map[string]any)
		if node, err = deref(item, out.schema+".schema.json"); err != nil {
			return nil, err
		}
	}
	props, _ := node["properties"].(map[string]any)
	var fields []string
	for k := range props {
		if k != "schema_version" {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	return fields, nil
}

func readSchema(name string) (map[string]any, error) {
	b, err := schema.FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// deref follows a "$ref" to a definition, in this file or another of
// the directory ("defs.schema.json#/$defs/snapshot").
func deref(node map[string]any, file string) (map[string]any, error) {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node, nil
	}
	f, frag, _ := strings.Cut(ref, "#")
	if f == "" {
		f = file
	}
	root, err := readSchema(f)
	if err != nil {
		return nil, err
	}
	var cur any = root
	for _, tok := range strings.Split(strings.Trim(frag, "/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[tok]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema %s: %s names nothing", file, ref)
	}
	return deref(m, f)
}

// fieldList is how --json FIELD,… is written: names, commas between.
var fieldList = lazy.Regexp(`^[a-z_]+(,[a-z_]+)*$`)

// jsonFieldsArg reports whether the word after --json is a list of the
// command's fields rather than a revision or other argument: every name
// in it must be a field of the command's output.
func jsonFieldsArg(cmd, word string) bool {
	if !fieldList().MatchString(word) {
		return false
	}
	fields, err := schemaFields(cmd)
	if err != nil {
		return false
	}
	for _, f := range strings.Split(word, ",") {
		if !slices.Contains(fields, f) {
			return false
		}
	}
	return true
}

// jsonCut is what a command's --json output goes through: the fields
// kept and the jq program, both checked before anything runs.
type jsonCut struct {
	list   string
	fields []string
	jq     *gojq.Code // --jq's expression, compiled; nil without --jq
}

// parseJSONCut reads --json FIELD,… and --jq for cmd; nil when neither
// is given.
func parseJSONCut(cmd, fieldsArg, expr string) (*jsonCut, error) {
	if fieldsArg == "" && expr == "" {
		return nil, nil
	}
	cut := &jsonCut{list: jsonOutputs[cmd].list}
	if fieldsArg != "" {
		known, err := schemaFields(cmd)
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Split(fieldsArg, ",") {
			if !slices.Contains(known, f) {
				return nil, usagef("--json %s: %q is no field of %s's output; its fields are %s", fieldsArg, f, cmd, strings.Join(known, ", "))
			}
			cut.fields = append(cut.fields, f)
		}
	}
	if expr != "" {
		var err error
		if cut.jq, err = compileJQ(expr); err != nil {
			return nil, usagef("--jq %q: %v", expr, err)
		}
	}
	return cut, nil
}

// compileJQ compiles a jq expression.
func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
}

// runJQ writes each value code gives for v: a string as it is, on its
// own line, anything else as JSON, as gh --jq and jq -r do. jq's halt
// without a value ends it without an error; any other error of the
// expression is the user's.
func runJQ(ctx context.Context, w io.Writer, code *gojq.Code, v any) error {
	iter := code.RunWithContext(ctx, v)
	for {
		x, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := x.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return usagef("--jq: %v", err)
		}
		if s, ok := x.(string); ok {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
			continue
		}
		if err := writeValue(w, x); err != nil {
			return err
		}
	}
}

// writeValue writes v as --json FIELD,… and --jq print a value: indented
// JSON, the keys of objects sorted, nothing escaped for HTML.
func writeValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSON writes v, a command's JSON output, cut as --json FIELD,…
// and --jq say.
func (d *deps) writeJSON(v any) error {
	if d.jsonCut == nil {
		return render.JSON(d.out, v)
	}
	var buf bytes.Buffer
	if err := render.JSON(&buf, v); err != nil {
		return err
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return err
	}
	x = jqValue(x)
	if len(d.jsonCut.fields) > 0 {
		x = d.jsonCut.keep(x)
	}
	if d.jsonCut.jq == nil {
		return writeValue(d.out, x)
	}
	return runJQ(context.Background(), d.out, d.jsonCut.jq, x)
}

// keep cuts x to the fields: of each item of the list, or of x itself;
// schema_version stays.
func (c *jsonCut) keep(x any) any {
	pick := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := map[string]any{}
		for _, f := range c.fields {
			if val, ok := m[f]; ok {
				out[f] = val
			}
		}
		return out
	}
	top, ok := x.(map[string]any)
	if !ok {
		return x
	}
	if _, isList := top[c.list].([]any); c.list == "" || !isList {
		out := pick(top).(map[string]any)
		out["schema_version"] = top["schema_version"]
		return out
	}
	items, _ := top[c.list].([]any)
	cut := make([]any, len(items))
	for i, it := range items {
		cut[i] = pick(it)
	}
	return map[string]any{"schema_version": top["schema_version"], c.list: cut}
}

// jqValue turns decoded JSON into the values gojq takes: numbers as int,
// *big.Int or float64.
func jqValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		if b, ok := new(big.Int).SetString(string(x), 10); ok {
			return b
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jqValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jqValue(x[k])
		}
	}
	return v
}
