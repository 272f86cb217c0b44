package agent

import "github.com/git-snap/git-snap/snapshot"

// LiveIndex lists which of a document's n stored messages are live
// (see Session), in order, with the file each came from, reading only
// the document's other members (rest). ok is false when the records
// themselves say it (an agent whose transcript appends changes to
// records, Gemini CLI's JSONL chat): then read them all (LiveMessages).
func LiveIndex(rest map[string]any, n int) (index []int, thread []string, ok bool) {
	stub := make([]any, n)
	doc := map[string]any{snapshot.MemberMessages: stub}
	for k, v := range rest {
		if k != snapshot.MemberMessages {
			doc[k] = v
		}
	}
	if name, _ := rest["agent"].(string); name != "" {
		if a, err := Lookup(name, Env{}); err == nil {
			if _, reduces := a.(liveReducer); reduces {
				if _, state := docStateFrom(rest); !state {
					if l, err := LayoutFrom(rest); err == nil && len(l.Runs) > 0 {
						return nil, nil, false
					}
				}
			}
		}
	}
	_, index, thread = liveRecords(doc)
	return index, thread, true
}
