package snapshot

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// PatchOp is one RFC 6902 JSON Patch operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// MakePatch returns a JSON Patch that turns a into b. Objects are patched
// member by member. For arrays, the common prefix and suffix are kept and
// only the middle is patched, so appending one message is a single "add".
func MakePatch(a, b any) []PatchOp {
	var ops []PatchOp
	makePatch(&ops, "", a, b)
	return ops
}

func makePatch(ops *[]PatchOp, ptr string, a, b any) {
	if Equal(a, b) {
		return
	}
	oa, okA := a.(map[string]any)
	ob, okB := b.(map[string]any)
	if okA && okB {
		for _, k := range sortedKeys(oa) {
			if _, ok := ob[k]; !ok {
				*ops = append(*ops, PatchOp{Op: "remove", Path: ptr + "/" + escapePointer(k)})
			}
		}
		for _, k := range sortedKeys(ob) {
			if va, ok := oa[k]; ok {
				makePatch(ops, ptr+"/"+escapePointer(k), va, ob[k])
			} else {
				*ops = append(*ops, PatchOp{Op: "add", Path: ptr + "/" + escapePointer(k), Value: ob[k]})
			}
		}
		return
	}
	aa, okA := a.([]any)
	ab, okB := b.([]any)
	if okA && okB {
		patchArray(ops, ptr, aa, ab)
		return
	}
	*ops = append(*ops, PatchOp{Op: "replace", Path: ptr, Value: b})
}

func patchArray(ops *[]PatchOp, ptr string, a, b []any) {
	pre := 0
	for pre < len(a) && pre < len(b) && Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	ma, mb := len(a)-pre-suf, len(b)-pre-suf
	for i := range min(ma, mb) {
		makePatch(ops, ptr+"/"+strconv.Itoa(pre+i), a[pre+i], b[pre+i])
	}
	for range ma - mb { // each removal shifts the later elements down
		*ops = append(*ops, PatchOp{Op: "remove", Path: ptr + "/" + strconv.Itoa(pre+mb)})
	}
	for j := ma; j < mb; j++ {
		at := strconv.Itoa(pre + j)
		if suf == 0 {
			at = "-" // append: the common case of a growing conversation
		}
		*ops = append(*ops, PatchOp{Op: "add", Path: ptr + "/" + at, Value: b[pre+j]})
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareKeys)
	return keys
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ApplyPatch applies a JSON Patch (add, remove, replace) to a deep copy
// of doc and returns the result.
func ApplyPatch(doc any, ops []PatchOp) (any, error) {
	root := deepCopy(doc)
	for i, op := range ops {
		var err error
		root, err = applyOp(root, op)
		if err != nil {
			return nil, fmt.Errorf("patch operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	return root, nil
}

func applyOp(root any, op PatchOp) (any, error) {
	if op.Path == "" {
		if op.Op == "remove" {
			return nil, fmt.Errorf("cannot remove the whole document")
		}
		return deepCopy(op.Value), nil
	}
	if !strings.HasPrefix(op.Path, "/") {
		return nil, fmt.Errorf("a JSON pointer starts with /")
	}
	tokens := strings.Split(op.Path[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	parent, last := tokens[:len(tokens)-1], tokens[len(tokens)-1]
	err := edit(&root, parent, func(container any, set func(any)) error {
		return applyAt(container, set, last, op)
	})
	return root, err
}

// edit walks to the container at path and calls f to change it. f can
// call set to replace the container itself, which it needs to do when
// an array changes length.
func edit(root *any, path []string, f func(container any, set func(any)) error) error {
	set := func(v any) { *root = v }
	cur := *root
	for _, t := range path {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[t]
			if !ok {
				return fmt.Errorf("no member %q", t)
			}
			key := c
			set = func(v any) { key[t] = v }
			cur = next
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return fmt.Errorf("no element %q", t)
			}
			arr := c
			set = func(v any) { arr[i] = v }
			cur = c[i]
		default:
			return fmt.Errorf("%q is inside %s", t, KindOf(cur))
		}
	}
	return f(cur, set)
}

func applyAt(container any, set func(any), last string, op PatchOp) error {
	switch c := container.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok && op.Op != "add" {
			return fmt.Errorf("no member %q", last)
		}
		if op.Op == "remove" {
			delete(c, last)
		} else {
			c[last] = deepCopy(op.Value)
		}
		return nil
	case []any:
		i := len(c)
		if last != "-" {
			n, err := strconv.Atoi(last)
			if err != nil || n < 0 || n > len(c) || n == len(c) && op.Op != "add" {
				return fmt.Errorf("no element %q", last)
			}
			i = n
		}
		switch op.Op {
		case "add":
			set(slices.Insert(slices.Clone(c), i, deepCopy(op.Value)))
		case "remove":
			set(slices.Delete(slices.Clone(c), i, i+1))
		case "replace":
			c[i] = deepCopy(op.Value)
		default:
			return fmt.Errorf("unsupported operation %q", op.Op)
		}
		return nil
	}
	return fmt.Errorf("cannot change a member of %s", KindOf(container))
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
