package snapshot

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Change operations.
const (
	OpAdded   = "added"
	OpRemoved = "removed"
	OpChanged = "changed"
)

// Diff is the semantic difference between two documents.
type Diff struct {
	Messages []ElementChange `json:"messages"`
	Events   []ElementChange `json:"events"`
	Members  []MemberChange  `json:"members"`
	Files    []FileChange    `json:"files"`
	Tokens   TokenDelta      `json:"tokens"`
}

// ElementChange is a message or event that was added, removed or
// changed. Elements are matched by the id the Viewer reads ("id" or
// "uuid" in the common shapes), or by position when they have no id.
type ElementChange struct {
	Op     string `json:"op"`
	Key    string `json:"key"`   // the id, or #N for the position
	Index  int    `json:"index"` // position in B, or in A when removed
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// MemberChange is a change at one JSON path outside messages, events and
// files, such as config, metadata or any application state.
type MemberChange struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// FileChange is a captured file that was added, removed or changed.
type FileChange struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	ModeA   string `json:"mode_before,omitempty"`
	ModeB   string `json:"mode_after,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
	Patch   string `json:"patch,omitempty"` // unified diff of text files
	Added   int    `json:"lines_added"`
	Removed int    `json:"lines_removed"`
}

// TokenDelta is B's token totals minus A's.
type TokenDelta struct {
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Output     int64 `json:"output"`
	Estimated  bool  `json:"estimated"` // some counts were estimated from text
}

// Compare computes the semantic diff that turns a into b. view reads the
// messages' ids and token counts; nil means ViewMessage.
func Compare(a, b map[string]any, view Viewer) (*Diff, error) {
	pa, err := Split(a)
	if err != nil {
		return nil, fmt.Errorf("first document: %w", err)
	}
	pb, err := Split(b)
	if err != nil {
		return nil, fmt.Errorf("second document: %w", err)
	}
	return CompareParts(pa, pb, view), nil
}

// CompareParts compares split documents. It skips pairs of elements that
// are Unchanged on both sides. The token delta counts only the elements
// that differ, since equal ones cancel out.
func CompareParts(pa, pb *Parts, view Viewer) *Diff {
	view = view.orGeneric()
	d := &Diff{
		Messages: compareElements(pa.Messages, pb.Messages, view),
		Events:   compareElements(pa.Events, pb.Events, view),
		Files:    compareFiles(pa.Files, pb.Files),
	}
	ra, rb := withoutFileMeta(pa.Others), withoutFileMeta(pb.Others)
	compareValues(&d.Members, nil, ra, rb)
	ma, mb := markUnchanged(pa.Messages, pb.Messages)
	sa := ComputeStats(map[string]any{MemberMessages: ma}, view)
	sb := ComputeStats(map[string]any{MemberMessages: mb}, view)
	d.Tokens = TokenDelta{
		Input:      sb.InputTokens - sa.InputTokens,
		CacheRead:  sb.CacheReadTokens - sa.CacheReadTokens,
		CacheWrite: sb.CacheWriteTokens - sa.CacheWriteTokens,
		Output:     sb.OutputTokens - sa.OutputTokens,
		Estimated:  sa.Estimated || sb.Estimated,
	}
	return d
}

// markUnchanged marks equal pairs at the same index as Unchanged, so that
// the token delta (and whether it is an estimate) reflects only the
// elements that differ.
//
// The lists are copied only when a pair needs marking. A diff computed
// by a store has already marked every pair it did not read, and copying
// two lists as long as a long session used to take a tenth of the time
// of a diff.
func markUnchanged(a, b []any) ([]any, []any) {
	copied := false
	for i := range min(len(a), len(b)) {
		if _, same := a[i].(Unchanged); !same && Equal(a[i], b[i]) {
			if !copied {
				a, b, copied = slices.Clone(a), slices.Clone(b), true
			}
			a[i], b[i] = Unchanged{}, Unchanged{}
		}
	}
	return a, b
}

// Empty reports whether the documents are equal.
func (d *Diff) Empty() bool {
	return len(d.Messages)+len(d.Events)+len(d.Members)+len(d.Files) == 0
}

func withoutFileMeta(rest map[string]any) map[string]any {
	if _, ok := rest[MemberFiles].(map[string]any); !ok {
		return rest
	}
	out := make(map[string]any, len(rest))
	for k, v := range rest {
		if k != MemberFiles {
			out[k] = v
		}
	}
	return out
}

// elementKeys computes a match key for each element that is not
// Unchanged: its id, made unique by an occurrence count, or else its
// position. It returns the positions and keys of those elements.
// Unchanged elements are never matched.
func elementKeys(elems []any, view Viewer) ([]int, []string) {
	var at []int
	var keys []string
	seen := map[string]int{}
	for i, e := range elems {
		if _, same := e.(Unchanged); same {
			continue
		}
		at = append(at, i)
		m := view(e)
		if m.ID == "" {
			keys = append(keys, fmt.Sprintf("#%d", i))
			continue
		}
		key := m.ID
		if n := seen[m.ID]; n > 0 {
			key = fmt.Sprintf("%s#%d", m.ID, n)
		}
		keys = append(keys, key)
		seen[m.ID]++
	}
	return at, keys
}

// compareElements matches by key the elements of a and b that are not
// Unchanged, and returns the added and changed ones in b's order, then
// the removed ones in a's order. Only those elements are visited twice,
// so comparing two long lists that differ in a few places costs little
// more than one pass.
func compareElements(a, b []any, view Viewer) []ElementChange {
	atA, ka := elementKeys(a, view)
	atB, kb := elementKeys(b, view)
	index := make(map[string]int, len(ka))
	for n, k := range ka {
		index[k] = n
	}
	matched := make([]bool, len(ka))
	var out []ElementChange
	for n, k := range kb {
		j := atB[n]
		m, ok := index[k]
		if !ok {
			out = append(out, ElementChange{Op: OpAdded, Key: k, Index: j, After: b[j]})
			continue
		}
		matched[m] = true
		if i := atA[m]; !Equal(a[i], b[j]) {
			out = append(out, ElementChange{Op: OpChanged, Key: k, Index: j, Before: a[i], After: b[j]})
		}
	}
	for m, k := range ka {
		if !matched[m] {
			i := atA[m]
			out = append(out, ElementChange{Op: OpRemoved, Key: k, Index: i, Before: a[i]})
		}
	}
	return out
}

// compareValues compares objects member by member and arrays of equal
// length element by element. Any other values are compared as a whole.
func compareValues(out *[]MemberChange, path []any, a, b any) {
	oa, okA := a.(map[string]any)
	ob, okB := b.(map[string]any)
	if okA && okB {
		keys := make([]string, 0, len(oa)+len(ob))
		for k := range oa {
			keys = append(keys, k)
		}
		for k := range ob {
			if _, ok := oa[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, CompareKeys)
		for _, k := range keys {
			va, inA := oa[k]
			vb, inB := ob[k]
			p := append(slices.Clip(path), k)
			switch {
			case !inA:
				*out = append(*out, MemberChange{Op: OpAdded, Path: FormatPath(p), After: vb})
			case !inB:
				*out = append(*out, MemberChange{Op: OpRemoved, Path: FormatPath(p), Before: va})
			default:
				compareValues(out, p, va, vb)
			}
		}
		return
	}
	aa, okA := a.([]any)
	ab, okB := b.([]any)
	if okA && okB && len(aa) == len(ab) {
		for i := range aa {
			compareValues(out, append(slices.Clip(path), i), aa[i], ab[i])
		}
		return
	}
	if !Equal(a, b) {
		*out = append(*out, MemberChange{Op: OpChanged, Path: FormatPath(path), Before: a, After: b})
	}
}

func compareFiles(a, b []File) []FileChange {
	byPath := make(map[string]File, len(a))
	for _, f := range a {
		byPath[f.Path] = f
	}
	var out []FileChange
	for _, fb := range b {
		fa, ok := byPath[fb.Path]
		delete(byPath, fb.Path)
		switch {
		case !ok:
			out = append(out, fileChange(OpAdded, File{}, fb))
		case fa.Mode != fb.Mode || !bytes.Equal(fa.Content, fb.Content):
			out = append(out, fileChange(OpChanged, fa, fb))
		}
	}
	for _, fa := range a {
		if _, ok := byPath[fa.Path]; ok {
			out = append(out, fileChange(OpRemoved, fa, File{}))
		}
	}
	slices.SortFunc(out, func(x, y FileChange) int { return strings.Compare(x.Path, y.Path) })
	return out
}

func fileChange(op string, a, b File) FileChange {
	c := FileChange{Op: op, Path: a.Path + b.Path, ModeA: a.Mode, ModeB: b.Mode}
	if op == OpChanged {
		c.Path = b.Path
	}
	if isBinary(a.Content) || isBinary(b.Content) {
		c.Binary = true
		return c
	}
	nameA, nameB := "a/"+c.Path, "b/"+c.Path
	if op == OpAdded {
		nameA = "/dev/null"
	}
	if op == OpRemoved {
		nameB = "/dev/null"
	}
	c.Patch = UnifiedDiff(nameA, nameB, string(a.Content), string(b.Content))
	lines := strings.Split(c.Patch, "\n")
	for _, line := range lines[min(2, len(lines)):] { // skip the --- and +++ lines
		switch {
		case strings.HasPrefix(line, "+"):
			c.Added++
		case strings.HasPrefix(line, "-"):
			c.Removed++
		}
	}
	return c
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// Unchanged is a placeholder for an element that a sparse load skipped,
// because it is stored at the same index with the same content on both
// sides of a comparison. CompareParts skips such pairs without reading
// them.
type Unchanged struct{}
