package snapshot

import (
	"fmt"
	"sort"
	"strings"
)

// MergeDocuments merges two documents that diverged from base, and
// returns the merged document and the JSON paths of its conflicts.
// Messages and events are merged by id: the local ones in their order,
// then the remote ones that the local side lacks. Files and other
// members get a three-way merge: a change on one side is taken when the
// other side kept base's value. When both sides changed a value
// differently, the local value wins and its path is listed as a
// conflict. view reads the ids; nil means ViewMessage.
func MergeDocuments(base, local, remote map[string]any, view Viewer) (map[string]any, []string) {
	if view == nil {
		view = ViewMessage
	}
	out := map[string]any{}
	var conflicts []string
	for _, k := range unionKeys(base, local, remote) {
		vb, inB := base[k]
		vl, inL := local[k]
		vr, inR := remote[k]
		switch k {
		case MemberMessages, MemberEvents:
			al, _ := vl.([]any)
			ar, _ := vr.([]any)
			merged, c := mergeByID(k, al, ar, view)
			conflicts = append(conflicts, c...)
			if inL || inR {
				out[k] = merged
			}
		case MemberFiles:
			if inL || inR {
				merged, c := mergeFiles(vb, vl, vr)
				out[k] = merged
				conflicts = append(conflicts, c...)
			}
		default:
			if v, ok, c := threeWay(vb, vl, vr, inB, inL, inR); ok {
				out[k] = v
				if c {
					conflicts = append(conflicts, FormatPath([]any{k}))
				}
			}
		}
	}
	return out, conflicts
}

// mergeFiles merges the files member path by path, with a three-way
// merge.
func mergeFiles(vb, vl, vr any) (map[string]any, []string) {
	fb, _ := vb.(map[string]any)
	fl, _ := vl.(map[string]any)
	fr, _ := vr.(map[string]any)
	merged := map[string]any{}
	var conflicts []string
	for _, p := range unionKeys(fb, fl, fr) {
		if v, ok, c := threeWay(fb[p], fl[p], fr[p], hasKey(fb, p), hasKey(fl, p), hasKey(fr, p)); ok {
			merged[p] = v
			if c {
				conflicts = append(conflicts, FormatPath([]any{MemberFiles, p}))
			}
		}
	}
	return merged, conflicts
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// threeWay returns a member's merged value. ok is false when the merged
// document has no such member; conflict is true when both sides changed
// it differently.
func threeWay(vb, vl, vr any, inB, inL, inR bool) (v any, ok, conflict bool) {
	same := func(a, b any, inA, inB bool) bool { return inA == inB && (!inA || Equal(a, b)) }
	switch {
	case same(vl, vr, inL, inR):
		return vl, inL, false
	case same(vb, vl, inB, inL): // only the remote changed it
		return vr, inR, false
	case same(vb, vr, inB, inR): // only the local side changed it
		return vl, inL, false
	}
	return vl, inL, true
}

func unionKeys(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// mergeByID keeps the local elements and appends the remote ones that
// the local side lacks, matching by id (or by content when there is no
// id). A remote element whose id matches a different local element is
// reported as a conflict.
func mergeByID(member string, local, remote []any, view Viewer) ([]any, []string) {
	key := func(e any) string {
		if m := view(e); m.ID != "" {
			return "id:" + m.ID
		}
		b, _ := Marshal(e)
		return "json:" + string(b)
	}
	have := map[string]any{}
	out := append([]any{}, local...)
	for _, e := range local {
		have[key(e)] = e
	}
	var conflicts []string
	for _, e := range remote {
		k := key(e)
		mine, ok := have[k]
		switch {
		case !ok:
			out = append(out, e)
			have[k] = e
		case !Equal(mine, e):
			conflicts = append(conflicts, fmt.Sprintf("$.%s[%s]", member, strings.TrimPrefix(k, "id:")))
		}
	}
	return out, conflicts
}
